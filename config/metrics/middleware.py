"""Measures every request: the first middleware, so that its time, status and queries include
everything the others do (a 400 for a bad Host, a 413, a 429)."""

from __future__ import annotations

import re
import time
from contextlib import ExitStack

from django.db import connections
from django.http import HttpRequest, HttpResponse

from config.metrics.instruments import (
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
from config.middleware import Handler

# The policy a 429 names in its RateLimit-Policy header (articles.api.throttling): `"read";q=..`.
_POLICY = re.compile(r'\s*"(read|write)"')


class MetricsMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        stats = RequestStats()
        token = current_request.set(stats)
        try:
            # Django's public hook for SQL instrumentation, on every database's connection of
            # this thread (a connection opened during the request gets it too: the wrapper is
            # kept on the thread's connection object, not on the socket).
            with ExitStack() as wrappers:
                for alias in connections:
                    wrappers.enter_context(connections[alias].execute_wrapper(stats.count_query))
                response = self.get_response(request)
        finally:
            current_request.reset(token)
        self._record(request, response, stats, time.perf_counter() - started)
        return response

    @staticmethod
    def _record(
        request: HttpRequest, response: HttpResponse, stats: RequestStats, elapsed: float
    ) -> None:
        surface = surface_of(request.path_info)
        route = route_of(request)
        method = method_of(request)
        status = response.status_code
        REQUESTS.labels(surface, route, method, str(status)).inc()
        LATENCY.labels(surface, route, method).observe(elapsed)
        for alias, count in stats.queries.items():
            DB_QUERIES.labels(surface, alias).inc(count)
        for operation, count in stats.cache_calls.items():
            CACHE_CALLS.labels(surface, operation).inc(count)
        if status == 429:
            named = _POLICY.match(response.get("RateLimit-Policy", ""))
            RATE_LIMIT_REFUSALS.labels(surface, named.group(1) if named else "other").inc()
