"""The /graphql endpoint: GraphQL over HTTP on top of graphene-django's view.

What this adds to graphene-django (see docs/graphql.md):
- `application/graphql-response+json` when the client prefers it, with the status codes of the
  GraphQL-over-HTTP draft (400 for a document that does not parse or an operation that cannot
  be selected, 422 for one that fails validation or variables that do not coerce); otherwise
  `application/json` with graphene-django's codes, as the contract says (a request error, no
  `data`, is a 400; the draft's SHOULD of 200 is not followed: see
  docs/decisions/graphql-over-http-status-codes.md);
- 415 for a body that is neither JSON nor a GraphQL document, 413 for one over MAX_BODY_BYTES;
- the token limit in the parser and after fragment expansion, the depth, aliases and
  introspection rules, the time budget;
- GraphiQL for browsers, from static files of this site only;
- no exception text from an unexpected fault in any response.
"""

from __future__ import annotations

import enum
import json
import logging
import time
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render
from graphene_django.views import GraphQLView, HttpError
from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    OperationType,
    execute,
    get_operation_ast,
)
from graphql.execution import get_variable_values

from core.metrics.instruments import graphql_errors
from core.ratelimit import charge_read, count_read
from graphapi.documents import InvalidDocument, valid_document
from graphapi.execution import STARTED_ATTRIBUTE, BudgetedExecutionContext, TimeBudget

logger = logging.getLogger(__name__)

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
BODY_TYPES = ("application/json", "application/graphql")
INTERNAL_ERROR = "Internal server error."
# RFC 9110 9.3.2: HEAD is GET without the content (the server leaves the body out).
READ_METHODS = ("GET", "HEAD")
ALLOWED_METHODS = ("GET", "HEAD", "POST", "OPTIONS")
DEFAULT_QUERY = "{\n  film(id: 1) {\n    title\n    planets {\n      name\n    }\n  }\n}\n"


class Failure(enum.Enum):
    """Where a request stopped before execution, which decides its status code."""

    PARSE = "parse"
    VALIDATION = "validation"
    OPERATION = "operation"  # no operation to select, or one the schema cannot run
    VARIABLES = "variables"  # CoerceVariableValues() raised a request error


# With application/graphql-response+json a response without `data` must be a 4xx (the draft,
# "Status Codes", "application/graphql-response+json"). Validation and variable coercion
# failures are 422, as the contract and issue 15 decide, where the draft's examples suggest 400
# (docs/decisions/graphql-over-http-status-codes.md).
GRAPHQL_RESPONSE_STATUS = {
    Failure.PARSE: 400,
    Failure.VALIDATION: 422,
    Failure.OPERATION: 400,
    Failure.VARIABLES: 422,
}


def _error_response(status: int, message: str, headers: dict[str, str] | None = None) -> HttpError:
    return HttpError(HttpResponse(status=status, headers=headers), message)


class StarWarsGraphQLView(GraphQLView):
    graphiql_template = "graphapi/graphiql.html"

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        setattr(request, STARTED_ATTRIBUTE, time.monotonic())
        media_type = self.response_media_type(request)
        try:
            if request.method not in ALLOWED_METHODS:
                raise HttpError(
                    HttpResponseNotAllowed(ALLOWED_METHODS),
                    "GraphQL accepts GET, HEAD and POST only.",
                )
            if request.method in READ_METHODS and self.can_display_graphiql(request, {}):
                return self.render_graphiql(request)
            self._within_the_read_limit(request)
            if request.method == "OPTIONS":
                # RFC 9110 9.3.7: the methods, as a REST resource answers them (and counted as
                # a read, as there); no CORS grant, the site makes none.
                return self._limited(
                    request, HttpResponse(headers={"Allow": ", ".join(ALLOWED_METHODS)})
                )
            try:
                status, body = self.run(request, self.parse_body(request), media_type)
            finally:
                self._charge_the_work(request)
        except HttpError as error:
            graphql_errors("request")
            response = error.response
            response.content = self.json_encode(request, {"errors": [{"message": error.message}]})
            response["Content-Type"] = media_type
            return self._limited(request, self._negotiated(response))
        response = HttpResponse(
            self.json_encode(request, body), status=status, content_type=media_type
        )
        return self._limited(request, self._negotiated(response))

    @staticmethod
    def _within_the_read_limit(request: HttpRequest) -> None:
        """A GraphQL request counts against the client's read limit, as a REST read does."""
        limit = count_read(request)
        if limit is not None and limit.exceeded:
            raise _error_response(
                429,
                f"Too many requests: the read limit is {limit.quota} per {limit.window} s;"
                f" retry in {limit.reset} s.",
                {"Retry-After": str(limit.reset)},
            )

    @staticmethod
    def _charge_the_work(request: HttpRequest) -> None:
        """Then its work: every GRAPHQL_READ_COST_MS of time it used counts as one read more, so
        that a client spending the whole time budget (2 s: 20 reads more) cannot crowd out
        readers."""
        used_ms = (time.monotonic() - getattr(request, STARTED_ATTRIBUTE)) * 1000
        if (extra := int(used_ms // settings.GRAPHQL_READ_COST_MS)) > 0:
            charge_read(request, extra)

    @staticmethod
    def _limited(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        state = getattr(request, "rate_limit", None)
        if state is not None:
            for name, value in state.headers().items():
                response[name] = value
        return response

    @staticmethod
    def response_media_type(request: HttpRequest) -> str:
        """application/graphql-response+json when the client names it and prefers it to
        application/json (by q-value, then by the client's order); application/json otherwise:
        a missing Accept, */*, application/*, or an Accept we cannot satisfy, which the
        GraphQL-over-HTTP specification lets a server answer in application/json, not 406."""
        named = request.accepted_type(GRAPHQL_RESPONSE)
        if named is None or named.sub_type == "*":
            return JSON
        return request.get_preferred_type([GRAPHQL_RESPONSE, JSON]) or JSON

    @staticmethod
    def _negotiated(response: HttpResponse) -> HttpResponse:
        response["Vary"] = "Accept"
        return response

    def render_graphiql(self, request: HttpRequest, **data: Any) -> HttpResponse:
        response = render(
            request,
            self.graphiql_template,
            {"endpoint": request.path, "default_query": DEFAULT_QUERY},
        )
        return self._negotiated(response)

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        if request.method != "POST":
            return {}
        content_type = self.get_content_type(request)
        if content_type not in BODY_TYPES:
            raise _error_response(
                415,
                "Send the request as application/json (or application/graphql), "
                f"not {content_type or 'a body without Content-Type'}.",
                {"Accept-Post": ", ".join(BODY_TYPES)},
            )
        try:
            raw = request.body
        except RequestDataTooBig:
            raise _error_response(
                413, f"The request body is larger than {settings.MAX_BODY_BYTES} bytes."
            ) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _error_response(400, "The request body is not UTF-8.") from None
        if content_type == "application/graphql":
            return {"query": text}
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: arrays nested 100,000 deep
            raise _error_response(400, "The request body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise _error_response(400, "The request body must be a JSON object.")
        return data

    def request_params(
        self, request: HttpRequest, data: dict[str, Any]
    ) -> tuple[str, dict[str, Any] | None, str | None]:
        query, variables, operation_name, _ = self.get_graphql_params(request, data)
        if not query:
            raise _error_response(400, "Must provide query string.")
        if not isinstance(query, str):
            raise _error_response(400, "query must be a string.")
        if variables is not None and not isinstance(variables, dict):
            raise _error_response(400, "variables must be a JSON object.")
        if operation_name is not None and not isinstance(operation_name, str):
            raise _error_response(400, "operationName must be a string.")
        self._check_extensions(request, data)
        return query, variables or None, operation_name

    @staticmethod
    def _check_extensions(request: HttpRequest, data: dict[str, Any]) -> None:
        """The draft's request parameters: {extensions}, when given, is a map. No extension is
        understood, so a well-formed one is ignored; any other value is not a well-formed
        GraphQL-over-HTTP request (400)."""
        extensions = data.get("extensions") if request.method == "POST" else None
        if request.method in READ_METHODS and "extensions" in request.GET:
            try:
                extensions = json.loads(request.GET["extensions"])
            except (ValueError, RecursionError):
                raise _error_response(400, "extensions must be a JSON object.") from None
        if extensions is not None and not isinstance(extensions, dict):
            raise _error_response(400, "extensions must be a JSON object.")

    def run(
        self, request: HttpRequest, data: dict[str, Any], media_type: str
    ) -> tuple[int, dict[str, Any]]:
        query, variables, operation_name = self.request_params(request, data)
        result, failure = self.execute_document(request, query, variables, operation_name)
        body: dict[str, Any] = {}
        if result.errors:
            body["errors"] = [self.format_error(error) for error in result.errors]
            _count_errors(body["errors"], failure)
        if failure is None:
            return 200, {"data": result.data, **body}
        # A request error: the response has no `data` (GraphQL spec, "Response Format").
        if media_type == GRAPHQL_RESPONSE:
            return GRAPHQL_RESPONSE_STATUS[failure], body
        # application/json keeps graphene-django's codes, as the contract says: a request error
        # (no `data`) is a 400. The draft's "Status Codes", "application/json" would say 200
        # (a SHOULD); docs/decisions/graphql-over-http-status-codes.md says why not.
        return 400, body

    def execute_document(
        self,
        request: HttpRequest,
        query: str,
        variables: dict[str, Any] | None,
        operation_name: str | None,
    ) -> tuple[ExecutionResult, Failure | None]:
        try:
            document = valid_document(self.schema.graphql_schema, query)
        except InvalidDocument as refused:
            if refused.document is None:
                return ExecutionResult(errors=refused.errors), Failure.PARSE
            self._refuse_mutation_over_get(request, refused.document, operation_name)
            return ExecutionResult(errors=refused.errors), Failure.VALIDATION
        self._refuse_mutation_over_get(request, document, operation_name)

        result = execute(
            self.schema.graphql_schema,
            document,
            context_value=request,
            variable_values=variables,
            operation_name=operation_name,
            execution_context_class=BudgetedExecutionContext,
            middleware=[TimeBudget()],
        )
        # Errors raised before any field ran (variables that do not coerce, an operation that
        # cannot be selected) leave no data and no path: the request could not run.
        if result.data is None and result.errors and not any(e.path for e in result.errors):
            return result, self._request_failure(document, variables, operation_name)
        return result, None

    def _request_failure(
        self, document: DocumentNode, variables: dict[str, Any] | None, operation_name: str | None
    ) -> Failure:
        """Which step of ExecuteRequest() refused: GetOperation(), CoerceVariableValues() (asked
        again through graphql-core's public `get_variable_values`, only for a refused request),
        or the schema's root type for the operation."""
        operation = get_operation_ast(document, operation_name)
        if operation is None:
            return Failure.OPERATION
        coerced = get_variable_values(
            self.schema.graphql_schema, operation.variable_definitions or (), variables or {}
        )
        return Failure.VARIABLES if isinstance(coerced, list) else Failure.OPERATION

    @staticmethod
    def _refuse_mutation_over_get(
        request: HttpRequest, document: DocumentNode, operation_name: str | None
    ) -> None:
        operation = get_operation_ast(document, operation_name)
        if (
            request.method in READ_METHODS
            and operation is not None
            and operation.operation != OperationType.QUERY
        ):
            raise HttpError(
                HttpResponseNotAllowed(["POST"]),
                f"A {operation.operation.value} must be sent with POST.",
            )

    @staticmethod
    def format_error(error: Exception) -> dict[str, Any]:
        if not isinstance(error, GraphQLError):
            logger.error("GraphQL request failed", exc_info=error)
            return {"message": INTERNAL_ERROR}
        original = error.original_error
        if original is not None and not isinstance(original, GraphQLError):
            # A resolver fault: its text may name internals (SQL, paths), so only the log has it.
            logger.error("GraphQL resolver failed at %s", error.path, exc_info=original)
            formatted = error.formatted
            formatted["message"] = INTERNAL_ERROR
            formatted.pop("extensions", None)
            return formatted
        return error.formatted


def _count_errors(errors: list[dict[str, Any]], failure: Failure | None) -> None:
    """The metrics' kinds: the step that refused the request, or, for errors raised while it
    ran, `execution` (a time budget, an error a resolver meant) and `internal` (a fault)."""
    if failure is not None:
        graphql_errors(failure.value, len(errors))
        return
    internal = sum(1 for error in errors if error["message"] == INTERNAL_ERROR)
    graphql_errors("internal", internal)
    graphql_errors("execution", len(errors) - internal)
