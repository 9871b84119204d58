"""Which surface a request is for, decided in this one place from its path; each surface
registers itself from its AppConfig.ready() (docs/architecture.md). A path no surface claims is
the site's HTML pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

ErrorHook = Callable[[HttpRequest, int, str], HttpResponse]


@dataclass(frozen=True)
class Surface:
    name: str
    prefix: str
    # Machine surfaces authenticate by header or not at all: no session, no cookie.
    cookies: bool = False
    # An error of the platform's, in the surface's language; None: a problem document.
    error: ErrorHook | None = None
    # Whether a browser gets an HTML page for a 404 or a 500 (else a problem document).
    html_errors: bool = True
    # Whether the surface logs its own server-side faults (SOAP answers a fault with 500 by
    # protocol, which Django's request log would otherwise report as a server error).
    logs_own_faults: bool = False


SITE = Surface("site", "/", cookies=True)
_surfaces: list[Surface] = []


def register(surface: Surface) -> None:
    """Add a surface; the longest matching prefix wins, so registration order does not matter."""
    _surfaces[:] = sorted(
        [*(s for s in _surfaces if s.prefix != surface.prefix), surface],
        key=lambda s: len(s.prefix),
        reverse=True,
    )


def surface_of(path: str) -> Surface:
    """PATH_INFO, as URLs are resolved."""
    for surface in _surfaces:
        if path.startswith(surface.prefix):
            return surface
    return SITE


# The platform's own paths: Django's admin (cookies, the site's errors), and the probes and the
# metrics, which read no cookie.
register(Surface("admin", "/admin", cookies=True))
for _probe in ("/healthz", "/livez", "/readyz", "/metrics"):
    register(Surface("site", _probe))
