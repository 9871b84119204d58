"""Measures every request: the first middleware, so that its time, status and queries include
everything the others do (a 400 for a bad Host, a 413, a 429). The labelled series are kept in
a dict of this process (label values are bounded) rather than looked up by `labels()` each time.
"""

from __future__ import annotations

import re
import time
from contextlib import ExitStack
from typing import Any

from django.db import connections
from django.http import HttpRequest, HttpResponse

from core.metrics.instruments import (
    CACHE_CALLS,
    DB_QUERIES,
    LATENCY,
    RATE_LIMIT_REFUSALS,
    REQUESTS,
    RequestStats,
    current_request,
)
from core.middleware import IMPLEMENTED_METHODS, Handler
from core.surfaces import surface_of

# The policy a 429 names in its RateLimit-Policy header (core.ratelimit): `"read";q=..`.
_POLICY = re.compile(r'\s*"(read|write|webhook-write)"')
# A request answered by middleware before URL resolution (a 400 for a bad Host, a 501, a 413),
# and one for a path no route names (a 404).
NOT_ROUTED = "(not routed)"
UNKNOWN_PATH = "(unknown path)"


def route_of(request: HttpRequest, status: int) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNKNOWN_PATH if status == 404 else NOT_ROUTED
    return match.route or UNKNOWN_PATH


class MetricsMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response
        # (surface, route, method, status) -> (its request counter, its latency histogram)
        self.series: dict[tuple[str, str, str, int], tuple[Any, Any]] = {}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        stats = RequestStats()
        token = current_request.set(stats)
        try:
            # Kept on the thread's connection object: a connection opened later is counted too.
            with ExitStack() as wrappers:
                for alias in connections:
                    wrappers.enter_context(connections[alias].execute_wrapper(stats.count_query))
                response = self.get_response(request)
        finally:
            current_request.reset(token)
        self._record(request, response, stats, time.perf_counter() - started)
        return response

    def _record(
        self, request: HttpRequest, response: HttpResponse, stats: RequestStats, elapsed: float
    ) -> None:
        surface = surface_of(request.path_info).name
        status = response.status_code
        method = request.method if request.method in IMPLEMENTED_METHODS else "other"
        key = (surface, route_of(request, status), method, status)
        series = self.series.get(key)
        if series is None:
            series = (
                REQUESTS.labels(surface, key[1], key[2], str(status)),
                LATENCY.labels(surface, key[1], key[2]),
            )
            self.series[key] = series
        series[0].inc()
        series[1].observe(elapsed)
        for alias, count in stats.queries.items():
            DB_QUERIES.labels(surface, alias).inc(count)
        for operation, count in stats.cache_calls.items():
            CACHE_CALLS.labels(surface, operation).inc(count)
        if status == 429:
            named = _POLICY.match(response.get("RateLimit-Policy", ""))
            RATE_LIMIT_REFUSALS.labels(surface, named.group(1) if named else "other").inc()
