"""The API's errors: RFC 9457 problem details for every exception a view can raise.

A plain HttpResponse, never the negotiated renderer's (a 406 still gets the problem document),
but for a person's browser (docs/decisions/browsable-api.md). Features `register` their domain
errors from their AppConfig.ready: this module imports no feature.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import DatabaseError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.cache_control import ERROR_CACHE_CONTROL
from core.negotiation import is_browser_navigation
from core.problems import fault_detail, problem_body, problem_response
from rest.negotiation import BrowsableHalRenderer

logger = logging.getLogger(__name__)

RETRY_AFTER_UNAVAILABLE_SECONDS = 5
PG_DISK_FULL = "53100"
# SQLSTATEs that mean "the database cannot serve now", not "this request is wrong": connection
# exceptions (class 08), shutdowns, too many connections, lock and statement timeouts.
_PG_TRANSIENT = {"57P01", "57P02", "57P03", "53300", "55P03", "57014", "40001", "40P01"}
_SQLITE_TRANSIENT = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN}


class InvalidQueryParameter(exceptions.APIException):
    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.errors = {name: [message]}


class UnprocessableContent(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = "The body has wrong or missing fields."

    def __init__(self, errors: dict[str, Any]) -> None:
        super().__init__()
        self.errors = {field: [str(m) for m in messages] for field, messages in errors.items()}


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "The resource changed since the version the request was based on."


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The service is unavailable; retry later."

    def __init__(self, detail: str | None = None, retry_after: int = 5) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class RequestInProgress(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "A request with this Idempotency-Key is still being processed; retry later."
    slug = "request-in-progress"


_Errors = Callable[[Any], dict[str, list[str]]]
# Registered domain errors: status, problem type, detail, `errors` and headers of their problem.
_ANSWERS: dict[
    type[Exception], tuple[int, str | None, str | None, _Errors | None, dict[str, str] | None]
] = {}


def register(
    error_class: type[Exception],
    *,
    status: int,
    slug: str | None = None,
    detail: str | None = None,
    errors: _Errors | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    """Answer `error_class` (and its subclasses), raised by a service under an API view, with
    the problem of `status` and `slug`; `detail` None says the exception's own text, `errors`
    gives the problem's `errors` from the exception, `headers` are added (a Retry-After)."""
    _ANSWERS[error_class] = (status, slug, detail, errors, headers)


def _problem(
    request: HttpRequest,
    *,
    status: int,
    detail: str,
    slug: str | None = None,
    errors: dict[str, list[str]] | None = None,
    headers: dict[str, str] | None = None,
) -> HttpResponse:
    """The problem document; for a person's browser, the browsable API's page of it."""
    # Only the API's own views negotiate BrowsableHalRenderer (other DRF views, such as the
    # schema's, keep problem+json), and an error raised before negotiation (a 405, maintenance)
    # stays problem+json too.
    renderer = getattr(request, "accepted_renderer", None)
    if isinstance(renderer, BrowsableHalRenderer) and is_browser_navigation(request):
        # A DRF Response, which the view's accepted renderer makes the page.
        body = problem_body(request, status=status, detail=detail, slug=slug, errors=errors)
        response = Response(body, status=status, headers=headers)
        response["Cache-Control"] = ERROR_CACHE_CONTROL
        return response
    return problem_response(
        request, status=status, detail=detail, slug=slug, errors=errors, headers=headers
    )


def _is_disk_full(exc: DatabaseError) -> bool:
    cause = exc.__cause__
    sqlite_full = _sqlite_primary_code(cause) == sqlite3.SQLITE_FULL
    return getattr(cause, "sqlstate", None) == PG_DISK_FULL or sqlite_full


def _sqlite_primary_code(error: BaseException | None) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    # Extended result codes carry the primary code in their low byte.
    return code & 0xFF if isinstance(code, int) else None


def _is_unavailable(exc: DatabaseError) -> bool:
    cause = exc.__cause__
    if isinstance(cause, sqlite3.Error):
        return _sqlite_primary_code(cause) in _SQLITE_TRANSIENT
    sqlstate = getattr(cause, "sqlstate", None)
    # psycopg has no SQLSTATE for a server it could not reach at all.
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in _PG_TRANSIENT


def _api_exception_response(request: HttpRequest, exc: exceptions.APIException) -> HttpResponse:
    if isinstance(exc, exceptions.ValidationError):
        # A serializer error outside our views (none today) is still a field error: 422.
        exc = UnprocessableContent(
            exc.detail if isinstance(exc.detail, dict) else {"body": exc.detail}
        )
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if isinstance(exc, exceptions.Throttled):
        headers["Retry-After"] = str(max(1, int(exc.wait or 1)))
    if isinstance(exc, ServiceUnavailable):
        headers["Retry-After"] = str(exc.retry_after)
    detail = exc.detail if isinstance(exc.detail, str) else exc.default_detail
    return _problem(
        request,
        status=exc.status_code,
        detail=str(detail),
        slug=getattr(exc, "slug", None),
        errors=getattr(exc, "errors", None),
        headers=headers,
    )


def exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: every exception of an API view becomes a problem."""
    request = context["request"]
    set_rollback()
    for error_class, (code, slug, detail, errors, headers) in _ANSWERS.items():
        if isinstance(exc, error_class):
            return _problem(
                request,
                status=code,
                slug=slug,
                detail=detail or str(exc),
                errors=errors(exc) if errors else None,
                headers=headers,
            )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("No such resource.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, (BadRequest, SuspiciousOperation)):
        # Django's own refusals of a request, e.g. more query parameters than
        # DATA_UPLOAD_MAX_NUMBER_FIELDS: the client's fault, never a 500.
        logger.warning("bad request (request_id=%s): %s", _request_id(request), type(exc).__name__)
        exc = exceptions.ParseError("The request is malformed or exceeds a limit of the server.")
    if isinstance(exc, exceptions.APIException):
        return _api_exception_response(request, exc)
    if isinstance(exc, DatabaseError) and _is_disk_full(exc):
        logger.error("database out of space (request_id=%s)", _request_id(request))
        return _problem(
            request, status=507, detail="The database is out of space; nothing was written."
        )
    if isinstance(exc, OperationalError) and _is_unavailable(exc):
        logger.error("database unavailable (request_id=%s): %s", _request_id(request), exc)
        return _problem(
            request,
            status=503,
            detail="The database is unreachable; retry later.",
            headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE_SECONDS)},
        )
    logger.exception("unexpected fault (request_id=%s)", _request_id(request))
    return _problem(request, status=500, detail=fault_detail(request))


def _request_id(request: HttpRequest) -> str:
    return getattr(request, "request_id", "-")
