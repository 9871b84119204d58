"""Rate limits on the shared cache, fixed windows that fail open (docs/rest.md, "Rate limits").

On Redis (django-redis) a window is one Lua script, run atomically by the server: one round trip
per request instead of two. Rate limiting was a fifth of a GET article's time in the worker.
"""

from __future__ import annotations

import logging
import math
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from core.client_address import client_address
from core.metrics.instruments import count_cache_call
from core.middleware import Handler

logger = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class RateLimitState:
    policy: str
    quota: int
    window: int
    remaining: int
    reset: int
    exceeded: bool = False

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"{self.policy}";q={self.quota};w={self.window}',
            "RateLimit": f'"{self.policy}";r={self.remaining};t={self.reset}',
        }


def parse_rate(rate: str) -> tuple[int, int]:
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period[0]]


def _count_hit(key: str, window: int, cost: int = 1) -> int:
    # `incr` counts atomically. Only a window's first hit finds no counter: `add` creates it
    # (atomically; of processes racing to create it, one wins and the others count with `incr`).
    # The extra second of lifetime keeps the key alive until its window has surely ended.
    # Trying `incr` first makes the usual hit one cache round trip instead of two.
    try:
        return cache.incr(key, cost)
    except ValueError:
        if cache.add(key, cost, timeout=window + 1):
            return cost
        return cache.incr(key, cost)


def _window_start(key: str, now: float, window: int) -> float:
    # Read first: the start exists for all but a window's first hit. Of several processes
    # opening the window at once, one `add` wins and all read its start.
    started = cache.get(key)
    if started is None:
        cache.add(key, now, timeout=window)
        started = cache.get(key, now)
    return started


_REDIS_WINDOW = """
local started = redis.call('HGET', KEYS[1], 'start')
if not started then
    started = ARGV[1]
    redis.call('HSET', KEYS[1], 'start', started)
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return {started, redis.call('HINCRBY', KEYS[1], 'hits', ARGV[3])}
"""


def _redis_client() -> Any | None:
    get_client = getattr(getattr(cache, "client", None), "get_client", None)
    return get_client(write=True) if get_client is not None else None


def _hit(key: str, now: float, window: int, cost: int = 1) -> tuple[float, int]:
    """(start of the window, hits in it including these `cost` ones)."""
    client = _redis_client()
    if client is not None:
        count_cache_call("eval")  # past the cache API, so counted here for the metrics
        started, hits = client.eval(_REDIS_WINDOW, 1, cache.make_key(key), repr(now), window, cost)
        return float(started), int(hits)
    started = _window_start(f"{key}:start", now, window)
    return started, _count_hit(f"{key}:{started}", window, cost)


# What the request being served was counted against, newest last: RateLimitHeadersMiddleware
# opens the list for each request, so that nothing is remembered from one request to the next.
_counted: ContextVar[list[RateLimitState] | None] = ContextVar("rate_limits", default=None)


def count_request(policy: str, rate: str, ident: str) -> RateLimitState | None:
    """Counts the request being served against `policy` for `ident`, once per request; None
    when limits are off or the cache is down."""
    for state in reversed(_counted.get() or ()):
        if state.policy == policy:
            return state
    return charge_request(policy, rate, ident, cost=1)


def charge_request(policy: str, rate: str, ident: str, *, cost: int) -> RateLimitState | None:
    """Counts `cost` hits against `policy` for `ident`, at each call."""
    if not settings.RATE_LIMIT_ENABLED:
        return None
    quota, window = parse_rate(rate)
    key = f"ratelimit:{policy}:{ident}:{window}"
    now = time.time()
    try:
        started, hits = _hit(key, now, window, cost)
    except Exception:  # the cache is down: serve without a limit
        logger.warning("rate limit cache unreachable; request not counted", exc_info=True)
        return None
    reset = max(1, math.ceil(started + window - now))
    state = RateLimitState(policy, quota, window, max(0, quota - hits), reset, hits > quota)
    if (counted := _counted.get()) is not None:
        counted.append(state)
    return state


def count_read(request: HttpRequest) -> RateLimitState | None:
    """The read limit, per client address (what rest.throttling.ReadRateThrottle counts)."""
    return count_request("read", settings.RATE_LIMIT_READ, client_ident(request))


def charge_read(request: HttpRequest, cost: int) -> RateLimitState | None:
    """`cost` more hits against the client's read limit (GraphQL weighs requests by their work)."""
    return charge_request("read", settings.RATE_LIMIT_READ, client_ident(request), cost=cost)


def client_ident(request: HttpRequest) -> str:
    """Whom a read is counted for: the client's address (the admin's lockout counts it too)."""
    return client_address(request) or "unknown"


class RateLimitHeadersMiddleware:
    """The one place the RateLimit headers are set, on every counted request's response."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        counted: list[RateLimitState] = []
        token = _counted.set(counted)
        try:
            response = self.get_response(request)
        finally:
            _counted.reset(token)
        if counted:
            for name, value in shown(counted).headers().items():
                response[name] = value
        return response


def shown(counted: list[RateLimitState]) -> RateLimitState:
    """The limit that binds: the exceeded one, else the one with the fewest requests left (each
    policy's newest state; the first counted on a tie)."""
    newest = {state.policy: state for state in counted}
    return max(newest.values(), key=lambda state: (state.exceeded, -state.remaining))
