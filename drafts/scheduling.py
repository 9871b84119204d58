"""Handing a scheduled draft to the scheduler (docs/decisions/publishing.md, "Publishing on time").

A schedule is allowed at most PUBLISH_HORIZON_DAYS ahead. Its ETA message for
`drafts.publish_scheduled` (drafts.tasks) is sent only once the time is within
DRAFTS_MESSAGE_WINDOW_SECONDS: a worker holds an ETA message unacknowledged until its time, and
Redis gives one held past its visibility timeout to another worker, a duplicate each time. A
schedule within the window sends it after its commit; the beat sweep sends it for the drafts whose
time comes into the window, and publishes those whose message never came. The guarded transition
publishes once either way."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core import broker
from drafts.exceptions import InvalidPublishTime
from drafts.models import Draft

PUBLISH_TASK = "drafts.publish_scheduled"


def check_publish_time(publish_at: datetime, *, now: datetime | None = None) -> None:
    """Raise InvalidPublishTime unless `publish_at` carries its offset, is in the future and at
    most PUBLISH_HORIZON_DAYS ahead: the one rule of every surface that schedules."""
    if timezone.is_naive(publish_at):
        raise InvalidPublishTime("The time must carry its offset (RFC 3339).")
    now = now or timezone.now()
    if publish_at <= now:
        raise InvalidPublishTime("The time must be in the future.")
    days = settings.PUBLISH_HORIZON_DAYS
    if publish_at > now + timedelta(days=days):
        raise InvalidPublishTime(
            f"The time must be at most {days} days ahead (PUBLISH_HORIZON_DAYS)."
        )


def window_end(now: datetime) -> datetime:
    """The latest time whose message may be sent at `now`."""
    return now + timedelta(seconds=settings.DRAFTS_MESSAGE_WINDOW_SECONDS)


def hand_over(draft_id: int, publish_at: datetime, *, now: datetime | None = None) -> int:
    """Send the draft's message if its time is within the window and none was sent for that time:
    1 when sent, else 0 (too far ahead, sent already, rescheduled since, or the broker refused;
    the sweep tries again). The claim is a conditional UPDATE, so that a schedule's commit and a
    sweep at the same moment send one message. Never raises."""
    now = now or timezone.now()
    if publish_at > window_end(now):
        return 0
    claim = Draft.objects.open().filter(pk=draft_id, publish_at=publish_at)
    if not claim.exclude(queued_for=publish_at).update(queued_for=publish_at):
        return 0
    sent = send_publish(draft_id, publish_at, now=now)
    if not sent:
        Draft.objects.filter(pk=draft_id, queued_for=publish_at).update(queued_for=None)
    return sent


def send_again(draft_id: int, publish_at: datetime, *, now: datetime) -> int:
    """An early message (the clocks of the sender and the worker disagree): sent again for the
    time that remains when that is within the window, else given back to the sweep."""
    if publish_at <= window_end(now):
        return send_publish(draft_id, publish_at, now=now)
    Draft.objects.filter(pk=draft_id, queued_for=publish_at).update(queued_for=None)
    return 0


def send_publish(draft_id: int, publish_at: datetime, *, now: datetime | None = None) -> int:
    """Hand the broker the message that publishes the draft at `publish_at` (a countdown from
    `now`); 1 when the broker took it, 0 when not. Never raises."""
    remaining = (publish_at - (now or timezone.now())).total_seconds()
    return broker.send(
        PUBLISH_TASK,
        [(draft_id, publish_at.isoformat())],
        countdown=max(remaining, 0),
        what="scheduled publications",
    )
