"""The address of the client a request comes from, for the rate limits and the admin's login
lockout (AXES_CLIENT_IP_CALLABLE). X-Forwarded-For is believed only behind the trusted proxy,
which replaces whatever the client sent (deploy/nginx/blog-service.conf)."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address, or the connection's when the proxy's header is not one."""
    # NUM_PROXIES read as DRF's BaseThrottle.get_ident reads it (0: never the header; n: the
    # entry n from its end; unset: the whole header), without DRF in the platform.
    connection = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES")
    address = connection
    if proxies is None and forwarded:
        address = "".join(forwarded.split())
    elif proxies and forwarded is not None:
        hops = forwarded.split(",")
        address = hops[-min(proxies, len(hops))].strip()
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        # Not an address (a header a client sent straight to gunicorn): axes stores the value in
        # an inet column, where anything else would fail the login with a 500.
        return connection
