"""The address of the client a request comes from, one answer for everything that counts clients:
the rate limits (core.ratelimit) and the admin's login lockout (django-axes,
AXES_CLIENT_IP_CALLABLE).

Behind the trusted proxy (BEHIND_TRUSTED_PROXY, REST_FRAMEWORK["NUM_PROXIES"] = 1) every request
comes from the proxy's address, and the client's is the last X-Forwarded-For entry, the one the
proxy wrote (deploy/nginx/blog-service.conf replaces whatever the client sent). Otherwise the
header is the client's own word and is ignored: the address is the connection's."""

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
