"""Handing a scheduled draft to the scheduler: an ETA message for `drafts.publish_scheduled`
(drafts.tasks), sent after the schedule's commit. What a lost message or a worker stopped across
the time misses, the beat sweep catches; the guarded transition publishes once either way."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from core import broker

PUBLISH_TASK = "drafts.publish_scheduled"


def send_publish(draft_id: int, publish_at: datetime, *, now: datetime | None = None) -> int:
    """Hand the broker the message that publishes the draft at `publish_at` (a countdown from
    `now`); 1 when the broker took it, 0 when not (the sweep publishes the draft then). Never
    raises."""
    remaining = (publish_at - (now or timezone.now())).total_seconds()
    return broker.send(
        PUBLISH_TASK,
        [(draft_id, publish_at.isoformat())],
        countdown=max(remaining, 0),
        what="scheduled publications",
    )
