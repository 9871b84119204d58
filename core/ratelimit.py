"""Rate limits on the shared cache: per client address for reads, per token for writes, and per
token again for webhook writes (a smaller limit, counted beside the write limit).

DRF's SimpleRateThrottle keeps a list of timestamps that it reads and writes back, which loses
counts when two processes race. Here each limit is a fixed window counted with `cache.add` and
`cache.incr`, both atomic on Redis (INCR) and on the local-memory cache (a lock), so several
server processes share one exact limit. A window opens with a client's first request (its start
is stored with `cache.add`, so every process agrees on it) and lasts the rate's period.

On Redis (django-redis) the same window is one Lua script, run atomically by the server: one
round trip per request instead of two (a hash holds the window's start and its hit count, and
expires with the window). Rate limiting was a fifth of a GET article's time in the worker.

If the cache cannot be reached, requests are served without a limit (and a warning is logged):
a rate limit protects the service, it must not become the reason the service is down.

Headers follow draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: "read";q=600;w=60` and
`RateLimit: "read";r=599;t=42` (r: requests left, t: seconds until the window resets).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from core.metrics.instruments import count_cache_call

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

    def binds_before(self, other: RateLimitState) -> bool:
        return (self.exceeded, -self.remaining) > (other.exceeded, -other.remaining)

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
    """The raw Redis client when the cache is django-redis, else None."""
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


def count_request(
    request: HttpRequest, policy: str, rate: str, ident: str
) -> RateLimitState | None:
    """Counts `request` against `policy` for `ident`, once per request: the state is kept on the
    request (the response's RateLimit headers come from it) and a second call returns it.

    None when limits are off, or when the cache cannot be reached (see the module docstring).
    """
    state = getattr(request, "rate_limit", None)
    if state is not None and state.policy == policy:
        return state
    return charge_request(request, policy, rate, ident, cost=1)


def charge_request(
    request: HttpRequest, policy: str, rate: str, ident: str, *, cost: int
) -> RateLimitState | None:
    """Counts `cost` hits against `policy` for `ident` (each call counts; count_request is the
    once-per-request form), and keeps the new state on the request."""
    if not settings.RATE_LIMIT_ENABLED:
        return None
    quota, window = parse_rate(rate)
    key = f"ratelimit:{policy}:{ident}:{window}"
    now = time.time()
    try:
        started, hits = _hit(key, now, window, cost)
    except Exception:  # the cache is down: serve without a limit (see the module docstring)
        logger.warning("rate limit cache unreachable; request not counted", exc_info=True)
        return None
    reset = max(1, math.ceil(started + window - now))
    state = RateLimitState(policy, quota, window, max(0, quota - hits), reset, hits > quota)
    # A request that several policies count (a webhook write: "write" and "webhook-write") shows
    # the one that binds: the exceeded one, else the one with the fewest requests left.
    shown = getattr(request, "rate_limit", None)
    if shown is None or shown.policy == policy or state.binds_before(shown):
        request.rate_limit = state
    return state


def count_read(request: HttpRequest) -> RateLimitState | None:
    """The read limit, per client address (what ReadRateThrottle counts)."""
    return count_request(request, "read", settings.RATE_LIMIT_READ, _client_ident(request))


def charge_read(request: HttpRequest, cost: int) -> RateLimitState | None:
    """`cost` more hits against the client's read limit (GraphQL weighs requests by their work)."""
    return charge_request(
        request, "read", settings.RATE_LIMIT_READ, _client_ident(request), cost=cost
    )


def _client_ident(request: HttpRequest) -> str:
    # REST_FRAMEWORK["NUM_PROXIES"] decides whether X-Forwarded-For is believed.
    return BaseThrottle().get_ident(request) or "unknown"


class FixedWindowThrottle(BaseThrottle):
    policy = ""
    rate_setting = ""

    def applies_to(self, request: Request) -> bool:
        raise NotImplementedError

    def ident(self, request: Request) -> str:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        if not self.applies_to(request):
            return True
        rate = getattr(settings, self.rate_setting)
        self.state = count_request(request, self.policy, rate, self.ident(request))
        return self.state is None or not self.state.exceeded

    def wait(self) -> float | None:
        state = getattr(self, "state", None)
        return state.reset if state else None


class ReadRateThrottle(FixedWindowThrottle):
    policy = "read"
    rate_setting = "RATE_LIMIT_READ"

    def applies_to(self, request: Request) -> bool:
        return request.method in ("GET", "HEAD", "OPTIONS")

    def ident(self, request: Request) -> str:
        return _client_ident(request)


class WriteRateThrottle(FixedWindowThrottle):
    policy = "write"
    rate_setting = "RATE_LIMIT_WRITE"

    def applies_to(self, request: Request) -> bool:
        return request.method not in ("GET", "HEAD", "OPTIONS")

    def ident(self, request: Request) -> str:
        token = request.auth
        return f"token-{token.pk}" if token is not None else f"addr-{self.get_ident(request)}"


class WebhookWriteRateThrottle(WriteRateThrottle):
    """A second, smaller limit on a token's webhook writes, beside the write limit."""

    policy = "webhook-write"
    rate_setting = "RATE_LIMIT_WEBHOOK_WRITE"
