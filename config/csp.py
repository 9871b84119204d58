"""django-csp's middleware, with the site-wide policy built once instead of on every response.

django-csp 4 builds the header for each response from the settings (a dataclass turned into a
dict, then every directive copied and joined): a third of the CPU of a SOAP request on the lean
route, and as much on every API answer. The policy of a response without a nonce and without a
per-view change is the same string every time, so it is built once per process (again when the
settings change, as tests do) and set as django-csp would set it. Every other response (a page
that used its nonce, a view with `csp_update`, `csp_replace`, `csp_exempt`, excluded prefixes,
the DEBUG error pages) goes through django-csp unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.http import HttpRequest
from django.http.response import HttpResponseBase

# What csp.decorators and views set on a response to change or drop its policy.
_PER_RESPONSE = frozenset(
    {
        "_csp_config",
        "_csp_update",
        "_csp_replace",
        "_csp_exempt",
        "_csp_config_ro",
        "_csp_update_ro",
        "_csp_replace_ro",
        "_csp_exempt_ro",
    }
)
_SETTINGS = ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY", "DEBUG")


@cache
def _site_policies() -> tuple[tuple[str, str], ...] | None:
    """(header, value) of the site-wide policies; None when the settings ask for django-csp's
    own path on every response (excluded URL prefixes; DEBUG, whose error pages it exempts)."""
    configs = [getattr(settings, name, None) or {} for name in _SETTINGS[:2]]
    if settings.DEBUG or any(config.get("EXCLUDE_URL_PREFIXES") for config in configs):
        return None
    built = ((HEADER, build_policy()), (HEADER_REPORT_ONLY, build_policy(report_only=True)))
    return tuple((header, value) for header, value in built if value)


def _forget(*, setting: str, **kwargs: object) -> None:
    if setting in _SETTINGS:
        _site_policies.cache_clear()


setting_changed.connect(_forget)


class CSPMiddleware(DjangoCSPMiddleware):
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        super().__init__(get_response)
        # What request.csp_nonce becomes once the header is written, as in django-csp: asking
        # for it then raises. Stateless (it never holds a value), so one serves every request.
        self._nonce_after_header = CheckableLazyObject(self._csp_nonce_post_response)

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        policies = _site_policies()
        if (
            policies is None
            or getattr(request, "_csp_nonce", None) is not None
            or not _PER_RESPONSE.isdisjoint(vars(response))
        ):
            return super().process_response(request, response)
        for header, value in policies:
            if header not in response:
                response[header] = value
        request.csp_nonce = self._nonce_after_header
        return response
