"""Publishing a draft on time, exactly once (docs/decisions/publishing.md, "Publishing on time").

One guarded transition decides who publishes: the UPDATE that marks the draft published matches
an open draft only, so of every attempt at once (the ETA task on two workers, a redelivered
message, the beat sweep, an editor's "publish now") exactly one writes the row, and the article
is created or replaced in the same transaction. Every other attempt finds no row and does nothing.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db.models import F
from django.utils import timezone

from articles.exceptions import ArticleError
from drafts.exceptions import ArticleChangedSinceDraft, DraftGone, DraftNotDue
from drafts.models import Draft
from drafts.services import draft_publish

logger = logging.getLogger(__name__)

# Drafts the sweep publishes per run, the earliest first; the next run takes the rest.
SWEEP_BATCH = 100


def publish(
    draft_id: int,
    *,
    now: datetime | None = None,
    due: bool = False,
    publish_at: datetime | None = None,
) -> bool:
    """Publish the draft if it is still open, through the one guarded transition
    (drafts.services.draft_publish), as its author: True when this call did, False when it was
    already published or deleted (or, with `due`, not yet due; with `publish_at`, scheduled for
    another time since). An ArticleError or ArticleChangedSinceDraft rolls the publication back
    and is raised."""
    draft = Draft.objects.select_related("author").filter(pk=draft_id).first()
    if draft is None:
        return False
    try:
        draft_publish(
            draft,
            actor=draft.author,
            due_at=(now or timezone.now()) if due else None,
            publish_at=publish_at,
        )
    except (DraftGone, DraftNotDue):
        return False
    return True


def publish_due(draft_id: int, now: datetime, *, publish_at: datetime | None = None) -> bool:
    """Publish the draft if it is open and its time has come (`publish_at`: and it is still the
    time the caller was told): the scheduler's transition."""
    return publish(draft_id, now=now, due=True, publish_at=publish_at)


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
    """The scheduler's attempt: publish the due draft; one that can no longer be published (its
    article changed, its blog archived) is taken off the schedule and logged, so that it is not
    tried again every sweep; its author finds it unscheduled."""
    try:
        return publish_due(draft_id, now, publish_at=publish_at)
    except (ArticleError, ArticleChangedSinceDraft) as error:
        unschedule(draft_id, publish_at=publish_at)
        logger.warning("draft %s was due at %s and is unscheduled: %s", draft_id, publish_at, error)
        return False


def due_drafts(now: datetime, limit: int = SWEEP_BATCH) -> list[tuple[int, datetime]]:
    """(id, publish_at) of the open drafts whose time has come, the earliest first, at most
    `limit` (the partial index draft_scheduled_idx)."""
    return list(
        Draft.objects.open()
        .filter(publish_at__isnull=False, publish_at__lte=now)
        .order_by("publish_at", "id")
        .values_list("pk", "publish_at")[:limit]
    )


def sweep(now: datetime | None = None, limit: int = SWEEP_BATCH) -> int:
    """Publish up to `limit` due drafts (those whose ETA message never came: a worker stopped
    across the time, a broker that lost it); how many this call published."""
    now = now or timezone.now()
    published = 0
    for draft_id, publish_at in due_drafts(now, limit):
        try:
            published += publish_on_time(draft_id, publish_at, now)
        except Exception:  # one draft's failure leaves the others to be published
            logger.exception("draft %s could not be published by the sweep", draft_id)
    return published
