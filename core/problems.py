"""RFC 9457 problem details, for every part of the site that answers errors in JSON.

A `type` is `<origin>/docs/problems/<slug>`, a page that resolves (RFC 9457 3.1.1); the origin is
PUBLIC_URL when the request's Host was refused (docs/decisions/hosts-and-ports.md).
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views import defaults

from core.cache_control import ERROR_CACHE_CONTROL
from core.negotiation import HTML_MEDIA_TYPE, preferred
from core.pages import not_found_page
from core.surfaces import surface_of

PROBLEM_MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True)
class ProblemType:
    status: int
    title: str
    meaning: str


PROBLEM_TYPES: dict[str, ProblemType] = {
    "bad-request": ProblemType(
        400, "Bad request", "Malformed JSON, a bad query parameter or another invalid request."
    ),
    "unauthorized": ProblemType(
        401,
        "Authentication required",
        "A write needs a valid X-Access-Token; none was sent, or it is unknown, revoked or "
        "expired.",
    ),
    "forbidden": ProblemType(
        403, "Forbidden", "The token is valid, but its user may not do this on this blog."
    ),
    "not-found": ProblemType(404, "Not found", "No blog, article, comment or route here."),
    "method-not-allowed": ProblemType(
        405, "Method not allowed", "The resource does not offer this method; see `Allow`."
    ),
    "not-acceptable": ProblemType(
        406,
        "Not acceptable",
        "No representation matches the Accept header, or it names an unknown API version.",
    ),
    "blog-archived": ProblemType(
        409, "Blog archived", "The editors archived this blog; it is read-only."
    ),
    "request-in-progress": ProblemType(
        409,
        "Request in progress",
        "A request with the same Idempotency-Key is still being processed; retry later.",
    ),
    "not-redeliverable": ProblemType(
        409,
        "Not redeliverable",
        "Only a failed delivery of an active webhook can be sent again: this one is pending,"
        " succeeded, or its webhook is disabled.",
    ),
    "webhook-limit-reached": ProblemType(
        409,
        "Webhook limit reached",
        "The blog has as many webhooks as it may (WEBHOOK_MAX_PER_BLOG); delete one first.",
    ),
    "gone": ProblemType(410, "Gone", "The article existed and was deleted; it stays gone."),
    "precondition-failed": ProblemType(
        412,
        "Precondition failed",
        "If-Match, If-None-Match or If-Unmodified-Since did not hold: the resource changed.",
    ),
    "length-required": ProblemType(
        411,
        "Length required",
        "The body came chunked, without a Content-Length; send it with one.",
    ),
    "content-too-large": ProblemType(
        413, "Content too large", "The request body is larger than the service accepts."
    ),
    "unsupported-media-type": ProblemType(
        415,
        "Unsupported media type",
        "Request bodies must be application/json or application/hal+json.",
    ),
    "validation-failed": ProblemType(
        422,
        "Validation failed",
        "Well-formed JSON with a wrong or missing field; `errors` names each field.",
    ),
    "content-too-complex": ProblemType(
        422,
        "Content too complex",
        "The Markdown would take longer than MARKDOWN_RENDER_BUDGET_MS of CPU time to render;"
        " nothing was written. Simplify it, split it, or send it as text.",
    ),
    "locked": ProblemType(
        423, "Locked", "An editor locked the article; it cannot be replaced or deleted."
    ),
    "too-many-requests": ProblemType(
        429,
        "Too many requests",
        "Over the rate limit; `Retry-After`, `RateLimit` and `RateLimit-Policy` say more.",
    ),
    "server-error": ProblemType(
        500, "Internal server error", "An unexpected fault; it was logged with the request id."
    ),
    "not-implemented": ProblemType(
        501, "Not implemented", "The server does not implement this method for any resource."
    ),
    "service-unavailable": ProblemType(
        503,
        "Service unavailable",
        "The database is unreachable, too busy to read a page in time, or maintenance is on;"
        " retry after `Retry-After` seconds.",
    ),
    "insufficient-storage": ProblemType(
        507, "Insufficient storage", "The database is out of space; the write was not made."
    ),
}

# The first slug of each status.
_DEFAULT_SLUG_BY_STATUS = {p.status: slug for slug, p in reversed(PROBLEM_TYPES.items())}


def problem_body(
    request: HttpRequest,
    *,
    status: int,
    detail: str,
    slug: str | None = None,
    errors: dict[str, list[str]] | None = None,
    host_refused: bool = False,
) -> dict[str, Any]:
    slug = slug or _DEFAULT_SLUG_BY_STATUS.get(
        status, "bad-request" if status < 500 else "server-error"
    )
    known = PROBLEM_TYPES.get(slug)
    doc = reverse("problem-doc", kwargs={"slug": slug})
    type_uri = settings.PUBLIC_URL + doc
    if not host_refused:
        with suppress(DisallowedHost):
            type_uri = request.build_absolute_uri(doc)
    body: dict[str, Any] = {
        "type": type_uri,
        "title": known.title if known else HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "instance": request.path,
    }
    if errors:
        body["errors"] = errors
    return body


def fault_detail(request: HttpRequest) -> str:
    """The detail of every 500 problem; never the exception."""
    return f"An unexpected fault; it was logged as request {getattr(request, 'request_id', '-')}."


def problem_response(
    request: HttpRequest,
    *,
    status: int,
    detail: str,
    slug: str | None = None,
    errors: dict[str, list[str]] | None = None,
    headers: dict[str, str] | None = None,
    host_refused: bool = False,
) -> HttpResponse:
    """`host_refused`: the request's Host (or X-Forwarded-Host) was refused, so the answer is
    built without it; DisallowedHost alone would miss a served host with a refused port."""
    body = problem_body(
        request, status=status, detail=detail, slug=slug, errors=errors, host_refused=host_refused
    )
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False).encode(),
        status=status,
        content_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )
    response["Cache-Control"] = ERROR_CACHE_CONTROL
    return response


def problem_doc(request: HttpRequest, slug: str) -> HttpResponse:
    problem = PROBLEM_TYPES.get(slug)
    if problem is None:
        raise Http404("no such problem type")
    return render(request, "docs/problem.html", {"slug": slug, "problem": problem})


def error_response(
    request: HttpRequest, *, status: int, detail: str, host_refused: bool = False
) -> HttpResponse:
    """An error the platform answers before any view runs, in the language of the request's
    surface (core.surfaces)."""
    hook = surface_of(request.path_info).error
    if hook is not None:
        return hook(request, status, detail)
    return problem_response(request, status=status, detail=detail, host_refused=host_refused)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: a problem, except for a browser outside the API
    (docs/decisions/not-found-for-people.md)."""
    if not surface_of(request.path_info).html_errors:
        return problem_response(request, status=404, detail="No such resource.")
    # A browser ranks HTML above problem+json; on a tie (`*/*`, no Accept) the problem wins.
    if preferred(request, [PROBLEM_MEDIA_TYPE, HTML_MEDIA_TYPE]) == HTML_MEDIA_TYPE:
        response = not_found_page(request)
    else:
        response = problem_response(request, status=404, detail="No such resource.")
    patch_vary_headers(response, ("Accept",))
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a problem, except on the surfaces whose errors are pages (Django's)."""
    if not surface_of(request.path_info).html_errors:
        return problem_response(request, status=500, detail=fault_detail(request))
    return defaults.server_error(request)
