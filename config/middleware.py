"""Site-wide middleware: request ids and the request log, methods we do not implement, and the
API's body-size limit (checked before anything reads the body)."""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from config.problems import PROBLEM_MEDIA_TYPE, problem_response

logger = logging.getLogger("config.requests")

_CLIENT_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")

# RFC 9110 section 9: the methods this server implements for at least one resource. A resource
# that does not offer one of them answers 405 with Allow; any other token (TRACE, CONNECT,
# WebDAV's or one made up) is 501, because no resource here implements it.
IMPLEMENTED_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})

Handler = Callable[[HttpRequest], HttpResponse]


class RequestIdMiddleware:
    """Gives every response an X-Request-ID and logs every request on one line."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.monotonic()
        # META directly: request.headers would build a dict of every header for one lookup.
        offered = request.META.get("HTTP_X_REQUEST_ID", "")
        # A client's id is kept only when it cannot inject anything into logs or headers.
        request_id = offered if _CLIENT_REQUEST_ID.fullmatch(offered) else secrets.token_hex(16)
        request.request_id = request_id
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        duration_ms = (time.monotonic() - started) * 1000
        logger.info(
            "%s %s %s %.1fms request_id=%s",
            request.method,
            request.path,
            response.status_code,
            duration_ms,
            request_id,
        )
        return response


class NotImplementedMethodMiddleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in IMPLEMENTED_METHODS:
            return problem_response(
                request,
                status=501,
                detail=f"This server does not implement the method {request.method[:32]!r}.",
            )
        return self.get_response(request)


class ApiBodySizeLimitMiddleware:
    """413 for API bodies over MAX_BODY_BYTES, decided from Content-Length before reading."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            declared = request.META.get("CONTENT_LENGTH") or "0"
            limit = settings.MAX_BODY_BYTES
            if not declared.isdigit():
                return problem_response(
                    request, status=400, detail="Content-Length is not a number of bytes."
                )
            if len(declared) > 18 or int(declared) > limit:
                return problem_response(
                    request,
                    status=413,
                    detail=f"The body is {declared} bytes; at most {limit} are accepted.",
                )
        return self.get_response(request)


class ApiProblemFallbackMiddleware:
    """Under /api/, an error answered by Django itself (an unknown route, or a fault outside a
    view) becomes a problem too. With DEBUG on, Django would otherwise send its technical 404
    and 500 pages, which list URL patterns, settings and tracebacks."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.path.startswith("/api/")
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith(PROBLEM_MEDIA_TYPE)
        ):
            if response.status_code >= 500:
                request_id = getattr(request, "request_id", "-")
                detail = f"An unexpected fault; it was logged as {request_id}."
            else:
                detail = "The request cannot be served."
            if response.status_code == 404:
                detail = "No such resource."
            return problem_response(request, status=response.status_code, detail=detail)
        return response
