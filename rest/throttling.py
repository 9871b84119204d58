"""The REST resources' rate limits: DRF throttles counting in the platform's fixed windows
(core.ratelimit). A policy is a name, the setting that holds its rate, the requests it applies
to and whom it counts them for; a new one is a subclass."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from core.ratelimit import RateLimitState, client_ident, count_request


class FixedWindowThrottle(BaseThrottle):
    policy = ""
    rate_setting = ""
    state: RateLimitState | None = None

    def applies_to(self, request: Request) -> bool:
        raise NotImplementedError

    def ident(self, request: Request) -> str:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        if not self.applies_to(request):
            return True
        rate = getattr(settings, self.rate_setting)
        self.state = count_request(self.policy, rate, self.ident(request))
        return self.state is None or not self.state.exceeded

    def wait(self) -> float | None:
        return self.state.reset if self.state else None


class ReadRateThrottle(FixedWindowThrottle):
    policy = "read"
    rate_setting = "RATE_LIMIT_READ"

    def applies_to(self, request: Request) -> bool:
        return request.method in SAFE_METHODS

    def ident(self, request: Request) -> str:
        return client_ident(request)


class WriteRateThrottle(FixedWindowThrottle):
    policy = "write"
    rate_setting = "RATE_LIMIT_WRITE"

    def applies_to(self, request: Request) -> bool:
        return request.method not in SAFE_METHODS

    def ident(self, request: Request) -> str:
        token = request.auth
        return f"token-{token.pk}" if token is not None else f"addr-{client_ident(request)}"


class WebhookWriteRateThrottle(WriteRateThrottle):
    """A second, smaller limit on a token's webhook writes, beside the write limit."""

    policy = "webhook-write"
    rate_setting = "RATE_LIMIT_WEBHOOK_WRITE"
