"""Measures every request: the first middleware, so that its time, status and queries include
everything the others do (a 400 for a bad Host, a 413, a 429).

Per request: a context variable set, Django's execute_wrapper entered on each database
connection of the thread, and, once answered, a handful of counter updates. The labelled
series are looked up in a dict of this process (label values are bounded, so it stays small)
rather than through `labels()` each time; prometheus-client's own lock per value is the only
one taken.
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
    method_of,
    route_of,
    surface_of,
)
from core.middleware import Handler

# The policy a 429 names in its RateLimit-Policy header (core.ratelimit): `"read";q=..`.
_POLICY = re.compile(r'\s*"(read|write|webhook-write)"')


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
            # Django's public hook for SQL instrumentation, on each database's connection of
            # this thread (kept on the thread's connection object, so a connection opened during
            # the request is counted too).
            aliases = list(connections)
            if len(aliases) == 1:
                with connections[aliases[0]].execute_wrapper(stats.count_query):
                    response = self.get_response(request)
            else:
                with ExitStack() as wrappers:
                    for alias in aliases:
                        wrapper = connections[alias].execute_wrapper(stats.count_query)
                        wrappers.enter_context(wrapper)
                    response = self.get_response(request)
        finally:
            current_request.reset(token)
        self._record(request, response, stats, time.perf_counter() - started)
        return response

    def _record(
        self, request: HttpRequest, response: HttpResponse, stats: RequestStats, elapsed: float
    ) -> None:
        surface = surface_of(request.path_info)
        status = response.status_code
        key = (surface, route_of(request, status), method_of(request), status)
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
