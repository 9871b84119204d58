"""Publishing a draft on time, exactly once (docs/decisions/publishing.md, "Publishing on time"):
every attempt at once (the ETA task on two workers, a redelivered message, the beat sweep, an
editor's "publish now") goes through the one guarded transition of draft_publish, so exactly one
publishes and every other finds no open draft and does nothing."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db.models import F, Q
from django.utils import timezone

from articles.exceptions import ArticleError
from drafts import scheduling
from drafts.exceptions import ArticleChangedSinceDraft, DraftGone, DraftNotDue
from drafts.models import Draft
from drafts.services import draft_publish

logger = logging.getLogger(__name__)

# Drafts the sweep publishes or hands over per run, the earliest first; the next run takes the
# rest.
SWEEP_BATCH = 100


def publish(
    draft_id: int, *, due_at: datetime | None = None, publish_at: datetime | None = None
) -> bool:
    """Publish the draft as its author: True when this call did, False when another did, it was
    deleted, or (with the scheduler's conditions) it is not due. An ArticleError or
    ArticleChangedSinceDraft rolls the publication back and is raised."""
    draft = Draft.objects.select_related("author").filter(pk=draft_id).first()
    if draft is None:
        return False
    try:
        draft_publish(draft, actor=draft.author, due_at=due_at, publish_at=publish_at)
    except (DraftGone, DraftNotDue):
        return False
    return True


def unschedule(draft_id: int, *, publish_at: datetime | None = None) -> bool:
    """Take the open draft off the schedule (only if it is still scheduled for `publish_at`, when
    given); True when this call did. Its version moves on: its representation changed."""
    conditions = {"publish_at": publish_at} if publish_at is not None else {}
    return (
        Draft.objects.open()
        .filter(pk=draft_id, publish_at__isnull=False, **conditions)
        .update(publish_at=None, version=F("version") + 1, updated_at=timezone.now())
        == 1
    )


def publish_on_time(draft_id: int, publish_at: datetime, now: datetime) -> bool:
    """The scheduler's attempt: publish the draft if it is due and still scheduled for
    `publish_at`. One that can no longer be published (its article changed, its blog archived) is
    taken off the schedule and logged, so that it is not tried again every sweep; its author finds
    it unscheduled."""
    try:
        return publish(draft_id, due_at=now, publish_at=publish_at)
    except (ArticleError, ArticleChangedSinceDraft) as error:
        unschedule(draft_id, publish_at=publish_at)
        logger.warning("draft %s was due at %s and is unscheduled: %s", draft_id, publish_at, error)
        return False


def sweep(now: datetime | None = None) -> int:
    """One run of beat's sweep, the earliest first and at most SWEEP_BATCH drafts: publish the
    due drafts whose ETA message never came (a worker stopped across the time, a broker that lost
    it), and send the message of each draft whose time came within the message window
    (drafts.scheduling.hand_over); how many this call published.

    One range read of the partial index draft_scheduled_idx (open scheduled drafts only), up to
    the window's end: the due drafts and the next DRAFTS_MESSAGE_WINDOW_SECONDS' schedules, those
    already handed over filtered out unless due. Nothing else is remembered between runs, so a
    beat restarted or down for a while catches up on its next run."""
    now = now or timezone.now()
    due_or_near = (
        Draft.objects.open()
        .filter(publish_at__isnull=False, publish_at__lte=scheduling.window_end(now))
        .filter(Q(publish_at__lte=now) | ~Q(queued_for=F("publish_at")))
        .order_by("publish_at", "id")
        .values_list("pk", "publish_at")[:SWEEP_BATCH]
    )
    published = 0
    for draft_id, publish_at in list(due_or_near):
        try:
            if publish_at <= now:
                published += publish_on_time(draft_id, publish_at, now)
            else:
                scheduling.hand_over(draft_id, publish_at, now=now)
        except Exception:  # one draft's failure leaves the others to be published
            logger.exception("draft %s could not be published by the sweep", draft_id)
    return published
