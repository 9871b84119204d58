"""The REST surface's own middleware: its body-size limit, checked before anything reads the
body, and a problem for every error Django answers itself under /api/."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.response import Response

from core.middleware import Handler
from core.problems import PROBLEM_MEDIA_TYPE, fault_detail, problem_response
from core.surfaces import Surface, surface_of

# Errors under /api/ are problem documents for every client, browsers included.
REST = Surface("rest", "/api/", html_errors=False)


class ApiBodySizeLimitMiddleware:
    """413 for API bodies over MAX_BODY_BYTES, decided from Content-Length before reading; 411 for
    a chunked body without one (Django reads a body by its Content-Length, so a chunked one would
    look empty)."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if surface_of(request.path_info) is REST:
            if "CONTENT_LENGTH" not in request.META and "HTTP_TRANSFER_ENCODING" in request.META:
                return problem_response(
                    request,
                    status=411,
                    detail="Send the body with a Content-Length (not chunked).",
                )
            # A number: BadRequestMiddleware answered anything else.
            declared = request.META.get("CONTENT_LENGTH") or "0"
            limit = settings.MAX_BODY_BYTES
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
    and 500 pages, which list URL patterns, settings and tracebacks. An error an API view
    rendered through DRF (the browsable API's page of a problem, for a browser) is kept."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            surface_of(request.path_info) is REST
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith(PROBLEM_MEDIA_TYPE)
            and not isinstance(response, Response)
        ):
            if response.status_code >= 500:
                detail = fault_detail(request)
            elif response.status_code == 404:
                detail = "No such resource."
            else:
                detail = "The request cannot be served."
            return problem_response(request, status=response.status_code, detail=detail)
        return response
