"""The platform's tasks: the edge's purges (core.edge_purge) and periodic work (beat:
settings.CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from core import edge_purge, health

# The task's own retries (1 s, 2 s, 4 s... at most 60 s apart: about 3 minutes in all); a row
# still there after them is the relay's, which purges such rows in batches.
PURGE_RETRIES = 8


@shared_task(name="core.cull_store")
def cull_store() -> int:
    """Expired entries of the database store, a bounded number per run (core.store)."""
    return cache.cull() if hasattr(cache, "cull") else 0


@shared_task(name="core.worker_heartbeat")
def worker_heartbeat() -> None:
    """A worker ran a task that beat sent: /readyz's "worker" check (core.health)."""
    health.worker_seen()


# acks_late: a worker killed in the middle leaves the message to another; a purge sent twice is
# harmless (a soft purge of keys already purged changes nothing).
@shared_task(
    name="core.purge_edge",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    max_retries=PURGE_RETRIES,
)
def purge_edge(self, row_id: int, position: int | None = None) -> bool:
    """Purge one write's keys on every edge, once the read replica has replayed the primary's WAL
    `position` read after the write's commit (messages without one, sent before there was one,
    wait for nothing); retried with a growing delay until each edge confirmed, then left to the
    relay."""
    if edge_purge.purge_row(row_id, position):
        return True
    if self.request.retries >= PURGE_RETRIES:
        edge_purge.postpone(row_id, seconds=0)
        return False
    countdown = edge_purge.backoff_seconds(self.request.retries + 1)
    edge_purge.postpone(row_id, seconds=countdown)
    raise self.retry(countdown=countdown)


@shared_task(name="core.relay_edge_purges", ignore_result=True)
def relay_edge_purges() -> int:
    """Purge, in a batch, the rows whose task never came or gave up (core.edge_purge.relay)."""
    return edge_purge.relay()
