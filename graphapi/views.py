"""The /graphql endpoint: graphene-django's GraphQLView, extended through its hooks.

docs/graphql.md says what each extension does, docs/decisions/graphql-view.md why it is here.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from graphene_django.views import GraphQLView, HttpError
from graphql import ExecutionResult, GraphQLError, OperationType, get_operation_ast
from graphql.execution import execute, get_variable_values

from core.ratelimit import charge_read, count_read
from graphapi.documents import InvalidDocument, valid_document
from graphapi.execution import STARTED_ATTRIBUTE, BudgetedExecutionContext
from graphapi.metrics import graphql_errors
from graphapi.validation import VALIDATION_RULES

logger = logging.getLogger(__name__)

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
BODY_TYPES = ("application/json", "application/graphql")
INTERNAL_ERROR = "Internal server error."
# RFC 9110 9.3.2: HEAD is GET without the content (the server leaves the body out).
READ_METHODS = ("GET", "HEAD")
ALLOWED_METHODS = ("GET", "HEAD", "POST", "OPTIONS")
# Request errors (no `data`) that application/graphql-response+json answers 422, as the
# contract and issue 15 decide; the others (parse, operation) are 400, as with application/json.
UNPROCESSABLE = frozenset({"validation", "variables"})


def _refusal(status: int, message: str, headers: dict[str, str] | None = None) -> HttpError:
    return HttpError(HttpResponse(status=status, headers=headers), message)


class SiteGraphQLView(GraphQLView):
    """/graphql: the Star Wars catalogue, blogs and articles."""

    graphiql = True
    graphiql_template = "graphapi/graphiql.html"
    execution_context_class = BudgetedExecutionContext
    validation_rules = VALIDATION_RULES
    # Which step refused the request (graphql_errors' kind), set by execute_graphql_request.
    failure: str | None = None

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        setattr(request, STARTED_ATTRIBUTE, time.monotonic())
        graphiql = self.can_display_graphiql(request, {})
        if request.method not in ALLOWED_METHODS:
            response = self._answer(
                request,
                HttpResponseNotAllowed(ALLOWED_METHODS),
                "GraphQL accepts GET, HEAD and POST only.",
            )
        elif not graphiql and (limit := count_read(request)) is not None and limit.exceeded:
            message = (
                f"Too many requests: the read limit is {limit.quota} per {limit.window} s;"
                f" retry in {limit.reset} s."
            )
            response = self._answer(request, HttpResponse(status=429), message)
            response["Retry-After"] = str(limit.reset)
        elif request.method == "OPTIONS":
            # RFC 9110 9.3.7: the methods, as a REST resource answers them (and counted as a
            # read, as there); no CORS grant, the site makes none.
            return HttpResponse(headers={"Allow": ", ".join(ALLOWED_METHODS)})
        else:
            # graphene-django's dispatch serves GET and POST; a HEAD is served as its GET.
            method = request.method
            request.method = "GET" if method == "HEAD" else method
            try:
                response = super().dispatch(request, *args, **kwargs)
            finally:
                request.method = method
                if not graphiql:
                    self._charge_the_work(request)
            # Its dispatch is decorated with ensure_csrf_cookie; this surface uses no cookie.
            response.cookies.pop(settings.CSRF_COOKIE_NAME, None)
        response["Vary"] = "Accept"
        if not graphiql:
            response["Content-Type"] = self.response_media_type(request)
        return response

    def _answer(self, request: HttpRequest, response: HttpResponse, message: str) -> HttpResponse:
        """A refusal before graphene-django's dispatch, in the form of its HttpError answers."""
        graphql_errors("request")
        response.content = self.json_encode(request, {"errors": [{"message": message}]})
        return response

    @staticmethod
    def _charge_the_work(request: HttpRequest) -> None:
        """Every GRAPHQL_READ_COST_MS of time a request used counts as one read more, so that a
        client spending the whole time budget (2 s: 20 reads more) cannot crowd out readers."""
        used_ms = (time.monotonic() - getattr(request, STARTED_ATTRIBUTE)) * 1000
        if (extra := int(used_ms // settings.GRAPHQL_READ_COST_MS)) > 0:
            charge_read(request, extra)

    @staticmethod
    def response_media_type(request: HttpRequest) -> str:
        """application/graphql-response+json when the client names it and prefers it to
        application/json; application/json otherwise, never 406 (docs/graphql.md)."""
        named = request.accepted_type(GRAPHQL_RESPONSE)
        if named is None or named.sub_type == "*":
            return JSON
        return request.get_preferred_type([GRAPHQL_RESPONSE, JSON]) or JSON

    @classmethod
    def can_display_graphiql(cls, request: HttpRequest, data: dict[str, Any]) -> bool:
        return request.method in READ_METHODS and super().can_display_graphiql(request, data)

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        if request.method != "POST":
            return {}
        content_type = self.get_content_type(request)
        if content_type not in BODY_TYPES:
            raise _refusal(
                415,
                "Send the request as application/json (or application/graphql), "
                f"not {content_type or 'a body without Content-Type'}.",
                {"Accept-Post": ", ".join(BODY_TYPES)},
            )
        try:
            text = request.body.decode("utf-8")
        except RequestDataTooBig:
            message = f"The request body is larger than {settings.MAX_BODY_BYTES} bytes."
            raise _refusal(413, message) from None
        except UnicodeDecodeError:
            raise _refusal(400, "The request body is not UTF-8.") from None
        if content_type == "application/graphql":
            return {"query": text}
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: arrays nested 100,000 deep
            raise _refusal(400, "The request body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise _refusal(400, "The request body must be a JSON object.")
        return data

    def get_response(
        self, request: HttpRequest, data: dict[str, Any], show_graphiql: bool = False
    ) -> tuple[str | None, int]:
        body, status = super().get_response(request, data, show_graphiql)
        if self.failure in UNPROCESSABLE and self.response_media_type(request) == GRAPHQL_RESPONSE:
            status = 422
        return body, status

    def execute_graphql_request(
        self,
        request: HttpRequest,
        data: dict[str, Any],
        query: Any,
        variables: Any,
        operation_name: Any,
        show_graphiql: bool = False,
    ) -> ExecutionResult:
        _check_request_parameters(request, data, query, variables, operation_name)
        schema = self.schema.graphql_schema
        try:
            document, refused = valid_document(schema, query, self.validation_rules), None
        except InvalidDocument as error:
            document, refused = error.document, error
        operation = None if document is None else get_operation_ast(document, operation_name)
        if (
            request.method in READ_METHODS
            and operation
            and operation.operation != OperationType.QUERY
        ):
            raise HttpError(
                HttpResponseNotAllowed(["POST"]),
                f"A {operation.operation.value} must be sent with POST.",
            )
        if refused is not None:
            self.failure = "parse" if document is None else "validation"
            return ExecutionResult(errors=refused.errors)
        result = execute(
            schema,
            document,
            root_value=self.get_root_value(request),
            context_value=self.get_context(request),
            variable_values=variables,
            operation_name=operation_name,
            middleware=self.get_middleware(request),
            execution_context_class=self.execution_context_class,
        )
        # Errors raised before any field ran leave no data and no path: the request could not
        # run. Which step of ExecuteRequest() refused: CoerceVariableValues() (asked again
        # through graphql-core's public get_variable_values), else GetOperation() or the
        # schema's root type for the operation.
        if result.data is None and result.errors and not any(e.path for e in result.errors):
            definitions = (operation.variable_definitions if operation else None) or ()
            coerced = get_variable_values(schema, definitions, variables or {})
            self.failure = "variables" if isinstance(coerced, list) else "operation"
        return result

    def format_error(self, error: Exception) -> dict[str, Any]:
        """Each error of an answer, counted by kind in the metrics: the step that refused the
        request, else `execution` (a time budget, an error a resolver meant) or `internal`."""
        if isinstance(error, HttpError):
            graphql_errors("request")
            return {"message": error.message}
        original = error.original_error
        if original is None or isinstance(original, GraphQLError):
            graphql_errors(self.failure or "execution")
            return error.formatted
        # A resolver fault: its text may name internals (SQL, paths), so only the log has it.
        graphql_errors("internal")
        logger.error("GraphQL resolver failed at %s", error.path, exc_info=original)
        kept = {name: value for name, value in error.formatted.items() if name != "extensions"}
        return kept | {"message": INTERNAL_ERROR}


def _check_request_parameters(
    request: HttpRequest, data: dict[str, Any], query: Any, variables: Any, operation_name: Any
) -> None:
    """The draft's request parameters, each of its type, else not a well-formed GraphQL-over-HTTP
    request (400). {extensions}, when given, is a map; none is understood, so it is ignored."""
    if not query:
        raise _refusal(400, "Must provide query string.")
    if not isinstance(query, str):
        raise _refusal(400, "query must be a string.")
    if variables is not None and not isinstance(variables, dict):
        raise _refusal(400, "variables must be a JSON object.")
    if operation_name is not None and not isinstance(operation_name, str):
        raise _refusal(400, "operationName must be a string.")
    extensions = data.get("extensions")
    if request.method in READ_METHODS and "extensions" in request.GET:
        try:
            extensions = json.loads(request.GET["extensions"])
        except (ValueError, RecursionError):
            raise _refusal(400, "extensions must be a JSON object.") from None
    if extensions is not None and not isinstance(extensions, dict):
        raise _refusal(400, "extensions must be a JSON object.")
