"""Rate limits on the shared store, fixed windows that fail open (docs/rest.md, "Rate limits").

A hit is counted by the store in one atomic round trip (core.store `count_hits`); the key names
the policy, its limit and the key format's version, so instances with other limits sharing the
store never add to each other's counts.
"""

from __future__ import annotations

import logging
import math
import time
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from core.client_address import client_address
from core.middleware import Middleware

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
    key = f"ratelimit:v2:{policy}:{quota}/{window}s:{ident}"
    now = time.time()
    try:
        started, hits = cache.count_hits(key, cost, window)
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


class RateLimitHeadersMiddleware(Middleware):
    """The one place the RateLimit headers are set, on every counted request's response."""

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
