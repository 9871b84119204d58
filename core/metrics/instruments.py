"""The service's metrics. Labels are bounded by construction (docs/decisions/metrics.md), so
that no client can grow the number of series."""

from __future__ import annotations

import collections
import contextvars
from typing import Any

from prometheus_client import Counter, Histogram, disable_created_metrics

# The `_created` series (when each labelled series was first used) would double the output and
# mean nothing in multiprocess mode, where prometheus-client leaves them out anyway.
disable_created_metrics()

# From a representation served out of Redis (about a millisecond) to the GraphQL time budget
# (2 s) and gunicorn's timeout (30 s).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

REQUESTS = Counter(
    "blog_http_requests",
    "HTTP requests answered, by surface, route (URL pattern), method and status.",
    ("surface", "route", "method", "status"),
)
LATENCY = Histogram(
    "blog_http_request_duration_seconds",
    "Time from the first middleware to the response, by surface, route and method.",
    ("surface", "route", "method"),
    buckets=LATENCY_BUCKETS,
)
DB_QUERIES = Counter(
    "blog_db_queries",
    "SQL statements executed while serving requests, by surface and database alias.",
    ("surface", "database"),
)
CACHE_CALLS = Counter(
    "blog_cache_calls",
    "Calls to the shared cache while serving requests, by surface and operation.",
    ("surface", "operation"),
)
RATE_LIMIT_REFUSALS = Counter(
    "blog_rate_limit_refusals",
    "Requests refused with 429, by surface and rate-limit policy (read, write; other: the"
    " admin's login lockout).",
    ("surface", "policy"),
)


class RequestStats:
    """What one request used, added to the counters once when it is answered: a few counter
    updates per request instead of one per query or cache call."""

    __slots__ = ("cache_calls", "in_cache_call", "queries")

    def __init__(self) -> None:
        self.queries: collections.Counter[str] = collections.Counter()  # by database alias
        self.cache_calls: collections.Counter[str] = collections.Counter()  # by operation
        # Set while a cache call runs, so that a backend's call into its own API
        # (DatabaseCache.get calls get_many) is one call, not two.
        self.in_cache_call = False

    def count_query(self, execute: Any, sql: Any, params: Any, many: bool, context: Any) -> Any:
        """A connection.execute_wrapper: counts the statement against its database alias."""
        self.queries[context["connection"].alias] += 1
        return execute(sql, params, many, context)


# The request being served by this thread (gunicorn's gthread workers serve one per thread).
current_request: contextvars.ContextVar[RequestStats | None] = contextvars.ContextVar(
    "current_request", default=None
)
