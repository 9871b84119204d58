"""The SQL a request runs on the content, without the shared store's own statements: on the
database store (core.store) a rate-limit count or a cache read is SQL too, on Redis it is not."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.test.utils import CaptureQueriesContext

STORE_TABLE = '"core_store"'


class ContentQueries(CaptureQueriesContext):
    """Django's CaptureQueriesContext, leaving out the statements on the store's table."""

    @property
    def captured_queries(self) -> list[dict]:
        return [query for query in super().captured_queries if STORE_TABLE not in query["sql"]]


@contextmanager
def content_queries(
    expected: int | None = None, *, at_most: int | None = None
) -> Iterator[ContentQueries]:
    """Asserts the number of content statements run in the block (exactly, or `at_most`)."""
    with ContentQueries(connection) as captured:
        yield captured
    statements = "\n".join(query["sql"] for query in captured)
    if expected is not None:
        assert len(captured) == expected, (
            f"{len(captured)} statements, not {expected}:\n{statements}"
        )
    if at_most is not None:
        assert len(captured) <= at_most, (
            f"{len(captured)} statements, over {at_most}:\n{statements}"
        )


def outside_savepoints(captured: ContentQueries) -> list[str]:
    """The statements a request ran, without the savepoints around a time bound's transaction
    (core.time_bound), which exist only because the test runs inside a transaction."""
    return [q["sql"] for q in captured if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
