"""Site-wide middleware: request ids and the request log, bad requests, methods we do not
implement, a body cut short, the unread body of a refused request, DEBUG's 404s."""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable
from contextlib import suppress

from django.conf import settings
from django.core.exceptions import BadRequest, DisallowedHost, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.urls import Resolver404, resolve

from core.problems import error_response, not_found, problem_response
from core.request_context import RequestContext, current_request

logger = logging.getLogger("config.requests")
security_logger = logging.getLogger("django.security")

_CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")

# RFC 9110 section 9: the methods this server implements for at least one resource. A resource
# that does not offer one of them answers 405 with Allow; any other token (TRACE, CONNECT,
# WebDAV's or one made up) is 501, because no resource here implements it.
IMPLEMENTED_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})

Handler = Callable[[HttpRequest], HttpResponse]


class Middleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response


class RequestIdMiddleware(Middleware):
    """Gives every response an X-Request-ID and logs every request on one line."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.monotonic()
        # META directly: request.headers would build a dict of every header for one lookup.
        offered = request.META.get("HTTP_X_REQUEST_ID", "")
        # A client's id is kept only when it cannot inject anything into logs or headers.
        request_id = offered if _CLIENT_REQUEST_ID.fullmatch(offered) else secrets.token_hex(16)
        request.request_id = request_id
        # Log lines and trace spans name the request until its own line is written.
        token = current_request.set(RequestContext(request_id))
        try:
            return self._respond(request, request_id, started)
        finally:
            current_request.reset(token)

    def _respond(self, request: HttpRequest, request_id: str, started: float) -> HttpResponse:
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        duration_ms = (time.monotonic() - started) * 1000
        extra = None
        if settings.LOG_FORMAT == "json":
            user = getattr(request, "user", None)  # DRF's token user, or the session's
            signed_in = user is not None and user.is_authenticated
            http = {
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(duration_ms, 1),
                "request_id": request_id,
                "user": user.get_username() if signed_in else None,
            }
            extra = {"http": http}
        logger.info(
            "%s %s %s %.1fms request_id=%s",
            request.method,
            request.path,
            response.status_code,
            duration_ms,
            request_id,
            extra=extra,
        )
        return response


class BadRequestMiddleware(Middleware):
    """400 for a request Django cannot read (Host, too many fields, Content-Length), before
    anything trips over it (docs/decisions/development-server.md)."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            _normalise_host(request)
            request.GET  # noqa: B018 (parsed now: too many fields is a SuspiciousOperation)
            declared = request.META.get("CONTENT_LENGTH")
            if declared and not declared.isdigit():
                raise BadRequest("Content-Length is not a number of bytes.")
        except (SuspiciousOperation, BadRequest) as error:
            security_logger.warning("bad request: %s", error)
            detail = _CLIENT_DETAIL.get(type(error).__name__, str(error))
            return error_response(
                request,
                status=400,
                detail=detail,
                host_refused=isinstance(error, (DisallowedHost, DisallowedPort)),
            )
        return self.get_response(request)


class DisallowedPort(SuspiciousOperation):
    pass


def _normalise_host(request: HttpRequest) -> None:
    """Checks the host the request names and writes it back normalised (lower case, no default
    port, any other port in ALLOWED_PORTS): links never echo a client's spelling."""
    host = request.get_host()  # DisallowedHost unless ALLOWED_HOSTS names it
    domain, port = split_domain_port(host)  # lower-cased
    default = "443" if request.is_secure() else "80"
    if port:
        if not (port.isdigit() and 0 < int(port) < 65536):
            raise DisallowedPort(f"invalid port in Host {host[:100]!r}")
        port = str(int(port))
        allowed = settings.ALLOWED_PORTS
        if port != default and "*" not in allowed and port not in allowed:
            raise DisallowedPort(f"port {port} is not in ALLOWED_PORTS")
    normalised = domain if not port or port == default else f"{domain}:{port}"
    if normalised != host:
        forwarded = settings.USE_X_FORWARDED_HOST and "HTTP_X_FORWARDED_HOST" in request.META
        request.META["HTTP_X_FORWARDED_HOST" if forwarded else "HTTP_HOST"] = normalised


# What the client is told; Django's own messages name settings.
_CLIENT_DETAIL = {
    "DisallowedHost": "The Host header names a host this service does not serve.",
    "DisallowedPort": "The Host header names a port this service does not serve.",
    "TooManyFieldsSent": "The request has more query parameters than this service accepts.",
}


class NotImplementedMethodMiddleware(Middleware):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in IMPLEMENTED_METHODS:
            return problem_response(
                request,
                status=501,
                detail=f"This server does not implement the method {request.method[:32]!r}.",
            )
        return self.get_response(request)


# How much of a refused body is read and thrown away so that the client, still sending, gets the
# 413 instead of a reset connection. Behind nginx (docs/production.md) nginx refuses larger
# bodies itself.
DRAIN_BYTES = 16 * 1024 * 1024
_DRAIN_CHUNK = 64 * 1024


class RefusedBodyDrainMiddleware(Middleware):
    """Reads the rest of a body refused with 413 (up to DRAIN_BYTES) before the answer goes out:
    gunicorn would drain only 64 KiB and close the keep-alive connection, and a client still
    sending would see a reset instead of the answer. Best effort."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        declared = request.META.get("CONTENT_LENGTH", "")
        # A body declared larger than the drain is not waited for: the connection closes after
        # the answer (gunicorn drains at most 64 KiB), as it would have anyway.
        if response.status_code == 413 and declared.isdigit() and int(declared) <= DRAIN_BYTES:
            drained = 0
            with suppress(Exception):  # the answer goes out whatever the drain met
                while drained < DRAIN_BYTES and (chunk := request.read(_DRAIN_CHUNK)):
                    drained += len(chunk)
        return response


class IncompleteBodyMiddleware(Middleware):
    """400 for a body that ended before its Content-Length (RFC 9112 6.3), for every surface
    (docs/decisions/incomplete-bodies.md). After rest.middleware.ApiBodySizeLimitMiddleware, so
    that an over-size API body is refused from its header before anything waits for it."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or ""
        # Anything but digits: BadRequestMiddleware (or the SOAP view) answered it.
        if declared.isdigit() and 0 < int(declared) <= settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            received = len(request.body)
            if received < int(declared):
                logger.warning(
                    "request body cut short: %s of %s bytes, request_id=%s",
                    received,
                    declared,
                    getattr(request, "request_id", "-"),
                )
                detail = (
                    f"The request body ended before its Content-Length: {received} of"
                    f" {declared} bytes arrived. Nothing was done; send the whole body again."
                )
                return error_response(request, status=400, detail=detail)
        return self.get_response(request)


class DebugNotFoundMiddleware(Middleware):
    """DEBUG only: 404s through handler404 instead of the technical page
    (docs/decisions/development-server.md)."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404 as error:
            return not_found(request, error)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404):
            return not_found(request, exception)
        return None
