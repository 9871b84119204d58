"""Purges of the edge cache from a transactional outbox (docs/decisions/edge-cache.md, "Purges").

A write records the surrogate keys it changed in its own transaction (`record`, called by
core.representations.changed); after the commit the row is handed to a worker (task
`core.purge_edge`), which sends `PURGE /` with `xkey-softpurge: <keys>` to every edge of
EDGE_PURGE_URLS and deletes the row once each answered 200. A row whose message never reached the
broker, or whose task gave up retrying, is purged by the relay (`core.relay_edge_purges`).
"""

from __future__ import annotations

import http.client
import logging
import random
import textwrap
import time
from collections.abc import Iterable
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone

from core import broker, db_router
from core.models import EdgePurge

logger = logging.getLogger(__name__)

PURGE_TASK = "core.purge_edge"
PURGE_HEADER = "xkey-softpurge"
# Retries of a row's task wait 1, 2, 4... seconds, at most this long.
BACKOFF_MAX_SECONDS = 60
# Rows one relay run purges (their keys merged into one request per edge).
RELAY_BATCH = 100
# Varnish refuses a header line longer than its http_req_hdr_len (8 KiB by default).
HEADER_MAX_CHARS = 4000
# How often a purge asks whether the read replica has replayed its write.
REPLAY_POLL_SECONDS = 0.05


def record(keys: Iterable[str]) -> None:
    """Record `keys` to purge, in the caller's transaction; after its commit, hand the row to a
    worker (without waiting for a broker that is down: the relay sends it then). No edge
    configured: nothing, not a statement."""
    if not settings.EDGE_PURGE_URLS:
        return
    wanted = sorted(set(keys))
    if not wanted:
        return
    now = timezone.now()
    row = EdgePurge.objects.create(
        keys=" ".join(wanted),
        created_at=now,
        next_attempt_at=now + timedelta(seconds=settings.EDGE_RELAY_AFTER_SECONDS),
    )
    transaction.on_commit(lambda: _hand_over(row.pk))


def _hand_over(row_id: int) -> None:
    """After the commit: the row's id to a worker, with the primary's WAL position when there is
    a replica to wait for (without one, the message the task has always taken: one argument)."""
    position = primary_position()
    calls = [(row_id,) if position is None else (row_id, position)]
    broker.send(PURGE_TASK, calls, what="edge purges")


def primary_position() -> int | None:
    """The primary's WAL position now (core.db_router.primary_wal_position): None without a
    replica, off PostgreSQL, or with the primary unreachable (the purge then waits for no
    replica: better late reads than no purge)."""
    try:
        return db_router.primary_wal_position()
    except DatabaseError:
        logger.warning(
            "primary's WAL position unreadable; the purge waits for no replica", exc_info=True
        )
        return None


def replay_wait_seconds() -> float:
    """The longest a purge waits for the replica: a replica further behind is left by every
    process's router (REPLICA_MAX_LAG_SECONDS, checked every REPLICA_CHECK_SECONDS)."""
    return settings.REPLICA_MAX_LAG_SECONDS + settings.REPLICA_CHECK_SECONDS


def wait_for_readers(position: int | None) -> None:
    """Wait, at most replay_wait_seconds(), until a read made now sees everything committed below
    `position` (replayed, or reads not routed to the replica). An edge refetches a purged object
    at once, as an anonymous read the router sends to the replica: purged before the replica
    replayed the write, the edge would keep the old state for s-maxage."""
    if position is None:
        return
    deadline = time.monotonic() + replay_wait_seconds()
    while db_router.replica_available() and not db_router.replica_replayed(position):
        if time.monotonic() >= deadline:
            logger.warning("edge purge sent before the read replica replayed its write")
            return
        time.sleep(REPLAY_POLL_SECONDS)


def purge(keys: Iterable[str]) -> bool:
    """Soft-purge `keys` on every edge; whether each of them confirmed (answered 200)."""
    # The keys space-separated, in values of at most HEADER_MAX_CHARS (a relay's batch may name
    # more keys than an edge accepts in one header line); a key is never cut.
    headers = textwrap.wrap(
        " ".join(keys), HEADER_MAX_CHARS, break_long_words=False, break_on_hyphens=False
    )
    # Every edge is asked, whichever failed before it.
    confirmed = [_purge_one(url, header) for url in settings.EDGE_PURGE_URLS for header in headers]
    return all(confirmed)


def _purge_one(url: str, header: str) -> bool:
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname, parts.port, timeout=settings.EDGE_PURGE_TIMEOUT_SECONDS)
    try:
        connection.request("PURGE", parts.path or "/", headers={PURGE_HEADER: header})
        response = connection.getresponse()
        response.read(1024)
    except (OSError, http.client.HTTPException) as error:
        logger.warning("edge %s unreachable for a purge: %s", url, error)
        return False
    finally:
        connection.close()
    if response.status != 200:
        logger.warning("edge %s answered %d to a purge", url, response.status)
        return False
    return True


def backoff_seconds(attempts: int) -> float:
    """1 s, 2 s, 4 s... after the n-th failed attempt, capped, at a random point of its upper
    half: rows that failed together do not all come back together."""
    delay = min(BACKOFF_MAX_SECONDS, 2 ** max(attempts - 1, 0))
    return random.uniform(delay / 2, delay)


def purge_row(row_id: int, position: int | None = None) -> bool:
    """The task's attempt: once readers see the primary's WAL `position` (the write's, read after
    its commit; wait_for_readers), purge the row's keys; True when done (every edge confirmed, or
    the row is gone: the relay purged it), the row then deleted."""
    keys = EdgePurge.objects.filter(pk=row_id).values_list("keys", flat=True).first()
    if keys is None:
        return True
    wait_for_readers(position)
    if not purge(keys.split()):
        return False
    EdgePurge.objects.filter(pk=row_id).delete()
    return True


def postpone(row_id: int, *, seconds: float) -> None:
    """A failed attempt of the task, to be retried in `seconds`: the relay leaves the row alone
    until that retry is overdue."""
    EdgePurge.objects.filter(pk=row_id).update(
        attempts=F("attempts") + 1,
        next_attempt_at=timezone.now()
        + timedelta(seconds=seconds + settings.EDGE_RELAY_AFTER_SECONDS),
    )


@transaction.atomic
def lease(*, limit: int = RELAY_BATCH) -> list[EdgePurge]:
    """The rows due for the relay (their next attempt passed), at most `limit`, taken for this
    relay: their next attempt is moved past the purge's own time, so that no other relay takes
    them meanwhile. PostgreSQL: the rows are locked as they are read, and a relay reading at the
    same time skips them; SQLite: the transaction holds the write lock from its start."""
    now = timezone.now()
    due = list(
        EdgePurge.objects.select_for_update(skip_locked=True)
        .filter(next_attempt_at__lte=now)
        .order_by("next_attempt_at", "pk")
        .only("keys", "attempts")[:limit]
    )
    if not due:
        return []
    held = timedelta(
        seconds=settings.EDGE_PURGE_TIMEOUT_SECONDS * 2 * len(settings.EDGE_PURGE_URLS)
        + (replay_wait_seconds() if db_router.replica_configured() else 0)
        + 5
    )
    taken = EdgePurge.objects.filter(pk__in=[row.pk for row in due], next_attempt_at__lte=now)
    # The rows are locked (or the database is): each is still due, and is taken.
    taken.update(next_attempt_at=now + held, attempts=F("attempts") + 1)
    return due


def relay(*, limit: int = RELAY_BATCH) -> int:
    """Purge the rows due, their keys merged into one request per edge, once readers see their
    writes (all committed before the primary's position read after the lease); how many rows were
    purged (0 when an edge did not confirm: they are tried again after a backoff)."""
    rows = lease(limit=limit)
    if not rows:
        return 0
    wait_for_readers(primary_position())
    ids = [row.pk for row in rows]
    keys = sorted({key for row in rows for key in row.keys.split()})
    if purge(keys):
        EdgePurge.objects.filter(pk__in=ids).delete()
        return len(ids)
    retry = timedelta(seconds=backoff_seconds(1 + max(row.attempts for row in rows)))
    EdgePurge.objects.filter(pk__in=ids).update(next_attempt_at=timezone.now() + retry)
    return 0
