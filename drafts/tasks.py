"""The scheduler's Celery tasks (docs/decisions/publishing.md, "Publishing on time"): the ETA task
a schedule (or the sweep, as the time comes within reach) sends, and the beat sweep. A message
names the time it was sent for, so that the message of a draft unscheduled or rescheduled since
does nothing; both publish through the one guarded transition (drafts.publishing)."""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.utils import timezone

from drafts import publishing
from drafts.models import Draft
from drafts.scheduling import PUBLISH_TASK, send_again


# acks_late: a worker killed while it publishes leaves the message to another, whose attempt
# the guard makes harmless. An early message (the clocks of the sender and the worker disagree)
# is sent again for the time that remains (drafts.scheduling.send_again).
@shared_task(name=PUBLISH_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def publish_scheduled(draft_id: int, publish_at_iso: str) -> bool:
    publish_at = datetime.fromisoformat(publish_at_iso)
    scheduled = Draft.objects.open().filter(pk=draft_id).values_list("publish_at", flat=True)
    if list(scheduled) != [publish_at]:
        return False  # published, deleted, unscheduled or rescheduled since: not this message's
    now = timezone.now()
    if publish_at > now:
        send_again(draft_id, publish_at, now=now)
        return False
    return publishing.publish_on_time(draft_id, publish_at, now)


@shared_task(name="drafts.sweep_scheduled", ignore_result=True)
def sweep_scheduled() -> int:
    """Every DRAFTS_SWEEP_SECONDS (beat): publishes the due drafts, hands over the near ones."""
    return publishing.sweep()
