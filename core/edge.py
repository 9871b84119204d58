"""What a shared cache in front of the service (the edge) may keep, said by the origin
(docs/decisions/edge-cache.md).

A view marks a response shareable by naming what it shows: `share(response, generations)`, the
representation cache's generations (core.representations), which become its surrogate keys
(`xkey`), the names a write purges. EdgeCacheMiddleware, the one place that decides, then makes a
shareable 200 or 304 public for a shared cache only (`max-age=0`, `s-maxage`), keeps everything
else out of it: a request with credentials, an error (every error says ERROR_CACHE_CONTROL, HTML
pages too), a response without keys.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from core.cache_control import (
    ERROR_CACHE_CONTROL,
    SHARED_VARY,
    SITE_KEY,
    STATIC_KEY,
    XKEY,
    shared_cache_control,
)
from core.middleware import Middleware
from core.representations import edge_keys

SHAREABLE_STATUSES = (200, 304)
SAFE_METHODS = ("GET", "HEAD")
PRIVATE = "private, no-cache"


def share(response: HttpResponse, generations: Iterable[str]) -> HttpResponse:
    """Mark `response` shareable by an edge cache, under the keys of `generations` and `site`."""
    keys = [*edge_keys(generations), SITE_KEY]
    response[XKEY] = " ".join(dict.fromkeys(keys))
    return response


def has_credentials(request: HttpRequest) -> bool:
    """Whether the request names someone: a token (REST's X-Access-Token), an Authorization
    header (the metrics' bearer, HTTP authentication), or a session (a signed-in editor)."""
    meta = request.META
    return (
        "HTTP_X_ACCESS_TOKEN" in meta
        or "HTTP_AUTHORIZATION" in meta
        or settings.SESSION_COOKIE_NAME in request.COOKIES
    )


def _directives(response: HttpResponse) -> set[str]:
    return {
        part.strip().split("=")[0].lower()
        for part in response.get("Cache-Control", "").split(",")
        if part.strip()
    }


class EdgeCacheMiddleware(Middleware):
    """The one place a response's shared cacheability is decided; outside every middleware that
    may answer by itself (whitenoise, the platform's errors), so it sees every response."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code >= 400 and not response.has_header("Cache-Control"):
            # Django's pages (400, 403, CSRF, 500) and the site's 404 say as the problems do.
            response["Cache-Control"] = ERROR_CACHE_CONTROL
        if request.method not in SAFE_METHODS:
            del response[XKEY]  # only reads are cached; a write's answer names no keys
            return response
        if has_credentials(request):
            keys = response.get(XKEY, "").split()
            del response[XKEY]
            if STATIC_KEY in keys:
                # The same bytes for everyone: a signed-in editor's browser keeps the admin's
                # files as anyone's does (an edge passes requests with credentials anyway).
                return response
            # The answer may be the caller's own (their drafts, their webhooks, the pages of a
            # signed-in editor): their browser keeps it, revalidating; no shared cache does.
            if "no-store" not in _directives(response):
                response["Cache-Control"] = PRIVATE
            patch_vary_headers(response, ("Accept",))
            return response
        if XKEY not in response:
            return response
        if response.status_code not in SHAREABLE_STATUSES or response.has_header("Set-Cookie"):
            # Errors describe one request (problems say no-store); a cookie is one client's.
            del response[XKEY]
            return response
        if response.has_header("Cache-Control"):
            # The view decided (static files: static_file_headers); keys only on a public one.
            if "public" not in _directives(response):
                del response[XKEY]
            return response
        response["Cache-Control"] = shared_cache_control()
        patch_vary_headers(response, SHARED_VARY)
        return response
