"""The address of the client a request comes from, one answer for everything that counts clients:
the REST rate limits (through DRF's throttles) and the admin's login lockout (django-axes,
AXES_CLIENT_IP_CALLABLE).

Behind the trusted proxy (BEHIND_TRUSTED_PROXY, REST_FRAMEWORK["NUM_PROXIES"] = 1) every request
comes from the proxy's address, and the client's is the last X-Forwarded-For entry, the one the
proxy wrote (deploy/nginx/blog-service.conf replaces whatever the client sent). Otherwise the
header is the client's own word and is ignored: the address is the connection's."""

from __future__ import annotations

import ipaddress

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address, or the connection's when the proxy's header is not one."""
    # DRF's reading of NUM_PROXIES, so that rate limits and lockouts never disagree on who a
    # client is.
    address = BaseThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        # Not an address (a header a client sent straight to gunicorn): axes stores the value in
        # an inet column, where anything else would fail the login with a 500.
        return request.META.get("REMOTE_ADDR")
