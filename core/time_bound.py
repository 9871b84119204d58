"""A time bound on a read's statements: the one way a read that may scan is kept from holding a
worker and a connection (docs/decisions/deep-pages.md).

PostgreSQL only: `statement_timeout`, set for the block's statements alone (`set_config(...,
true)`, which ends with the block's transaction) on the database the read runs on. SQLite, the
development database, runs the block unbounded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import OperationalError, connections, transaction

QUERY_CANCELED = "57014"  # PostgreSQL's SQLSTATE for a statement over statement_timeout


class TimeBoundExceeded(Exception):
    """The database cancelled a statement of the block: the bound was spent. The caller says
    what to narrow (each read its own problem: a search's `q`, a page's `pageIndex`)."""


class TimeBound:
    """What is left of the bound, for a block that runs several statements: `renew()` before
    each gives the next one only the time the earlier ones left (one more short statement)."""

    def __init__(self, alias: str, milliseconds: int, *, bounded: bool) -> None:
        self.alias = alias
        self.bounded = bounded
        self.deadline = time.monotonic() + milliseconds / 1000

    def renew(self) -> None:
        """Bound the next statements by what is left; TimeBoundExceeded when nothing is."""
        if not self.bounded:
            return
        left = int((self.deadline - time.monotonic()) * 1000)
        if left < 1:
            raise TimeBoundExceeded
        _statement_timeout(self.alias, left)


def _statement_timeout(alias: str, milliseconds: int, also: dict[str, str] | None = None) -> None:
    """statement_timeout, and the settings `also` names, for the transaction, in one statement."""
    values = {"statement_timeout": str(milliseconds), **(also or {})}
    calls = ", ".join("set_config(%s, %s, true)" for _ in values)
    with connections[alias].cursor() as cursor:
        cursor.execute(f"SELECT {calls}", [item for pair in values.items() for item in pair])


@contextmanager
def time_bound(
    alias: str, milliseconds: int, *, also: dict[str, str] | None = None
) -> Iterator[TimeBound]:
    """Run the block's statements on database `alias` in one transaction, each cancelled past
    `milliseconds` (statement_timeout), with the PostgreSQL settings `also` names for them too;
    a cancelled one is TimeBoundExceeded, raised once the transaction is rolled back. On other
    databases the block runs as it is."""
    if connections[alias].vendor != "postgresql":
        yield TimeBound(alias, milliseconds, bounded=False)
        return
    bound = TimeBound(alias, milliseconds, bounded=True)
    try:
        with transaction.atomic(using=alias):
            _statement_timeout(alias, milliseconds, also)
            yield bound
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != QUERY_CANCELED:
            raise
        raise TimeBoundExceeded from None
