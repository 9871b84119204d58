"""The edge's header vocabulary, and static files' headers (WHITENOISE_ADD_HEADERS_FUNCTION):
imported by the settings, so it imports nothing of the platform (docs/decisions/edge-cache.md).
core.edge decides what is shared."""

from __future__ import annotations

from django.conf import settings

XKEY = "xkey"
# On every shareable response: an operator's "purge everything".
SITE_KEY = "site"
STATIC_KEY = "static"
# What a shared copy varies by: the media type (its `version` parameter included: the version
# travels in Accept) and the content coding.
SHARED_VARY = ("Accept", "Accept-Encoding")
# Every error, a problem document or an HTML page: it describes one request, so neither a browser
# nor a shared cache keeps it (RFC 9111 5.2.2.5). Without it a 404 is heuristically cacheable
# (RFC 9111 4.2.2), and an edge would keep a page that says "not yet" after the thing exists.
ERROR_CACHE_CONTROL = "no-store"


def shared_cache_control() -> str:
    """Fresh for browsers never (max-age=0: they revalidate, cheaply, with the validators);
    for the edge EDGE_SHARED_MAX_AGE seconds, then served stale while it revalidates or while
    the origin fails."""
    return (
        f"public, max-age=0, s-maxage={settings.EDGE_SHARED_MAX_AGE}, "
        f"stale-while-revalidate={settings.EDGE_STALE_WHILE_REVALIDATE}, "
        f"stale-if-error={settings.EDGE_STALE_IF_ERROR}"
    )


def static_file_headers(headers, path: str, url: str) -> None:
    """WHITENOISE_ADD_HEADERS_FUNCTION: static files are shared as the API's reads are, under
    `site static`. A file whose name carries a hash of its content (the manifest's names in
    production) keeps whitenoise's year-long `immutable`: its bytes never change under it."""
    if "immutable" not in headers.get("Cache-Control", ""):
        headers["Cache-Control"] = shared_cache_control()
    headers[XKEY] = f"{SITE_KEY} {STATIC_KEY}"
