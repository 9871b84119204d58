"""Content reads to the read replica when nothing asks for the primary, the rest to the primary
(docs/production.md, "Read replica"; docs/decisions/read-replica.md)."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponse

from core.middleware import Middleware

logger = logging.getLogger(__name__)

PRIMARY = "default"
REPLICA = "replica"
REPLICA_APPS = frozenset({"blogs", "articles", "graphapi"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_HEADER = "HTTP_X_ACCESS_TOKEN"  # noqa: S105 (a header name, not a secret)
# GraphQL has queries only (no mutations), so its POSTs are reads. A mutation added there would
# write in a service's transaction (the primary) but read its payload afterwards: remove the
# path from here then.
READ_ONLY_PATHS = ("/graphql",)

# Seconds behind the primary: 0 when every WAL record received is replayed and a WAL receiver is
# running (nothing is missing, however old the last transaction); otherwise the age of the last
# transaction replayed, since a replica cut off from its primary looks replayed. NULL (nothing
# replayed since the start) counts as too far behind. Then where replay stands, as REPLAYED_SQL.
LAG_SQL = """
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
        AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver) THEN 0
    ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())
END, pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0'::pg_lsn
"""
# WAL positions as numbers (bytes from 0/0), so that Python compares them. The primary's insert
# position, not pg_current_wal_lsn(): that is what has been written out, and with
# synchronous_commit off a commit that has returned may not be written yet.
PRIMARY_POSITION_SQL = "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"
REPLAYED_SQL = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() - '0/0'::pg_lsn"
# A server that is not in recovery has everything (the primary itself, as in the tests' mirror,
# or a promoted replica), as LAG_SQL counts it current; nothing replayed yet is short of any.
EVERYTHING = float("inf")
NOTHING = -1


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


@dataclass
class _RequestState:
    identity: Callable[[], str | None]
    unsafe: bool
    _pinned: bool | None = None
    replica_connected: bool = False

    def pinned(self) -> bool:
        if self.unsafe:
            return True
        if self._pinned is None:
            self._pinned = _pin_stands(self.identity())
        return self._pinned


_request: ContextVar[_RequestState | None] = ContextVar("replica_request", default=None)
_forced: ContextVar[bool] = ContextVar("replica_forced", default=False)


@contextmanager
def reads_from_primary() -> Iterator[None]:
    reset = _forced.set(True)
    try:
        yield
    finally:
        _forced.reset(reset)


def client_identity(request: HttpRequest) -> str | None:
    """Whom a pin belongs to: the request's access token (hashed: the cache is no place for
    secrets; reads never authenticate it), else its session's user."""
    token = request.META.get(TOKEN_HEADER, "").strip()
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return None


def _pin_key(identity: str | None) -> str:
    return f"replica:pin:{identity}"


def _pin_stands(identity: str | None) -> bool:
    if identity is None:
        return False
    try:
        return cache.get(_pin_key(identity)) is not None
    except Exception:  # without the cache no pin can be trusted: the primary is always right
        logger.warning("replica pin unreadable; reading from the primary", exc_info=True)
        return True


class ReplicaPinMiddleware(Middleware):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not replica_configured():
            return self.get_response(request)
        unsafe = request.method not in SAFE_METHODS and not request.path_info.startswith(
            READ_ONLY_PATHS
        )
        reset = _request.set(_RequestState(lambda: client_identity(request), unsafe))
        try:
            response = self.get_response(request)
        finally:
            _request.reset(reset)
        # After any unsafe request, failed ones too: a client that got a 412 reads the
        # current ETag next. Only an authenticated client is pinned (DRF sets request.user).
        user = getattr(request, "user", None)
        if unsafe and user is not None and user.is_authenticated:
            try:
                cache.set(_pin_key(client_identity(request)), 1, settings.REPLICA_PIN_SECONDS)
            except Exception:
                logger.warning(
                    "replica pin not kept; reads may lag behind this write", exc_info=True
                )
        return response


@dataclass
class _Health:
    lock: threading.Lock = field(default_factory=threading.Lock)
    checked_at: float = float("-inf")
    usable: bool = False

    def mark_down(self) -> None:
        logger.warning("read replica unreachable; reading from the primary", exc_info=True)
        self.usable = False
        self.checked_at = time.monotonic()


_health = _Health()


class _Replayed(threading.local):
    """Where replay stood on the replica when this thread's connection last asked: per
    connection, not per process, since connections through a load balancer may reach different
    replicas. A new connection starts knowing nothing."""

    position: float = NOTHING


_replayed = _Replayed()


def forget_replayed_position(sender: object, connection: BaseDatabaseWrapper, **kwargs) -> None:
    """connection_created's receiver (core.apps): a new connection knows nothing of replay."""
    if connection.alias == REPLICA:
        _replayed.position = NOTHING


def _position(in_recovery: bool, replayed: Decimal | None) -> float:
    if not in_recovery:
        return EVERYTHING
    return NOTHING if replayed is None else int(replayed)


def _replica_lag_seconds() -> float | None:
    replica = connections[REPLICA]
    if replica.vendor != "postgresql":
        _replayed.position = EVERYTHING  # no replication: the same database
        return 0.0
    with replica.cursor() as cursor:
        cursor.execute(LAG_SQL)
        lag, in_recovery, replayed = cursor.fetchone()
    _replayed.position = _position(in_recovery, replayed)
    return None if lag is None else float(lag)


def _recheck() -> None:
    with _health.lock:
        if time.monotonic() - _health.checked_at < settings.REPLICA_CHECK_SECONDS:
            return  # another thread has just checked
        try:
            lag = _replica_lag_seconds()
        except DatabaseError:
            _health.mark_down()
            return
        _health.usable = lag is not None and lag <= settings.REPLICA_MAX_LAG_SECONDS
        _health.checked_at = time.monotonic()
        if not _health.usable:
            logger.warning("read replica %s s behind; reading from the primary", lag)


def replica_usable(state: _RequestState | None) -> bool:
    if time.monotonic() - _health.checked_at >= settings.REPLICA_CHECK_SECONDS:
        _recheck()
    if not _health.usable:
        return False
    if state is not None and state.replica_connected:
        return True
    # A kept connection to a replica that has gone since the last check: Django's health check
    # (CONN_HEALTH_CHECKS) runs when a cursor is made, once a request, and reconnecting raises.
    try:
        connections[REPLICA].cursor().close()
    except DatabaseError:
        _health.mark_down()
        return False
    if state is not None:
        state.replica_connected = True
    return True


def replica_available() -> bool:
    """Whether content reads made now may go to the replica: one is configured and usable, and
    neither the code (a transaction, reads_from_primary) nor the request (an unsafe method, a
    client that wrote lately) asks for the primary."""
    if not replica_configured() or _forced.get() or connections[PRIMARY].in_atomic_block:
        return False
    state = _request.get()
    if state is not None and state.pinned():
        return False
    return replica_usable(state)


def primary_wal_position() -> int | None:
    """The primary's WAL position now: every transaction committed before this call is below
    it. None without a replica or off PostgreSQL, where nothing compares it (no statement)."""
    primary = connections[PRIMARY]
    if not replica_configured() or primary.vendor != "postgresql":
        return None
    with primary.cursor() as cursor:
        cursor.execute(PRIMARY_POSITION_SQL)
        return int(cursor.fetchone()[0])


def replica_replayed(position: int) -> bool:
    """Whether the replica this thread reads has replayed the primary's WAL up to `position`.
    Replay only moves forward: the replica is asked again only when what is known of it falls
    short of `position`, so a replica that keeps up costs one small query per connection each
    time the position needed moves past it, not one per read."""
    if _replayed.position >= position:
        return True
    replica = connections[REPLICA]
    if replica.vendor != "postgresql":
        _replayed.position = EVERYTHING
        return True
    try:
        with replica.cursor() as cursor:
            cursor.execute(REPLAYED_SQL)
            _replayed.position = _position(*cursor.fetchone())
    except DatabaseError:
        _health.mark_down()
        return False
    return _replayed.position >= position


class ReplicaRouter:
    def db_for_read(self, model: type, **hints: object) -> str:
        if model._meta.app_label in REPLICA_APPS and replica_available():
            return REPLICA
        return PRIMARY

    def db_for_write(self, model: type, **hints: object) -> str:
        return PRIMARY

    def allow_relation(self, obj1: object, obj2: object, **hints: object) -> bool:
        return True  # both aliases hold the same rows

    def allow_migrate(self, db: str, app_label: str, **hints: object) -> bool:
        return db == PRIMARY  # the replica follows the primary's schema by replication
