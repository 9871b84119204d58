"""OpenAPI (drf-spectacular): what it cannot infer from the serializers. The statuses each
operation answers (a generated client must never meet an undeclared one), the shared parameters,
the token scheme, a LinksField's `_links` (docs/decisions/openapi-from-serializers.md).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import build_array_type, build_object_type
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers

from core.problems import PROBLEM_MEDIA_TYPE
from rest.links import CurieSerializer, LinkSerializer


@extend_schema_serializer(description="RFC 9457 problem details.")
class ProblemSerializer(serializers.Serializer):
    type = serializers.URLField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    instance = serializers.CharField()
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For 400 and 422: each offending field or parameter.",
    )


PROBLEM_MEANINGS = {
    400: "Malformed JSON, a body that is not an object, a bad query parameter or"
    " Idempotency-Key, or a request the service cannot read (a Host it does not serve, too many"
    " query parameters).",
    401: "No, unknown, revoked or expired X-Access-Token (WWW-Authenticate is sent).",
    403: "The token's user has no right on this blog.",
    404: "No such blog, article or comment.",
    406: "The Accept header cannot be satisfied or names an unknown version.",
    409: "The blog is archived, or a request with this Idempotency-Key is in progress.",
    410: "The article existed and was deleted (for good: not 404).",
    411: "A chunked body: send it with a Content-Length.",
    412: "If-Match, If-None-Match or If-Unmodified-Since failed.",
    413: "The body is larger than MAX_BODY_BYTES.",
    415: "The body is not application/json or application/hal+json.",
    422: "A field is wrong or missing (see `errors`).",
    423: "The article is locked by the editors.",
    429: "Over the rate limit (Retry-After, RateLimit, RateLimit-Policy).",
    500: "An unexpected fault; the body names the request id it was logged under.",
    503: "The database is unreachable, too busy to read a page in time, or maintenance is on"
    " (Retry-After).",
    507: "The database is out of space; nothing was written.",
}

# What any operation can answer: a request the service cannot read, the Accept header, the rate
# limit, a fault, the database or maintenance.
ANY_OPERATION = (400, 406, 429, 500, 503)
# What any write can answer besides: the token, and a database out of space.
ANY_WRITE = (401, 507)
# What a write with a body can answer besides: how the body is sent and what it holds.
WITH_BODY = (411, 413, 415, 422)
NOT_MODIFIED = OpenApiResponse(None, "Not modified: your copy is current.")


def problems(*statuses: int, meanings: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    """The problem responses of `statuses`; `meanings` says what some of them mean for one
    operation in particular."""
    meanings = {**PROBLEM_MEANINGS, **(meanings or {})}
    return {
        (status, PROBLEM_MEDIA_TYPE): OpenApiResponse(ProblemSerializer, meanings[status])
        for status in sorted(set(statuses))
    }


def _header(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, str, OpenApiParameter.HEADER, description=description)


PAGE_PARAMETERS = [
    OpenApiParameter("pageIndex", int, description="1-based page number (default 1)."),
    OpenApiParameter(
        "pageSize",
        int,
        description=f"Items per page, 1 to {settings.PAGE_SIZE_MAX}"
        f" (default {settings.PAGE_SIZE_DEFAULT}).",
    ),
]
CONDITIONAL_READ = [
    _header("If-None-Match", "304 when the ETag matches."),
    _header(
        "If-Modified-Since",
        "304 when unchanged since this HTTP-date; ignored with If-None-Match.",
    ),
]
CONDITIONAL_WRITE = [
    _header(
        "If-Match", "Write only if the ETag you read still matches (else 412); `*` matches any."
    ),
    _header(
        "If-Unmodified-Since",
        "Write only if unchanged since this HTTP-date (else 412); ignored with If-Match.",
    ),
]
IDEMPOTENCY_KEY = _header(
    "Idempotency-Key", "A retried POST with the same key returns the first answer (kept 24 h)."
)
PREFER = _header("Prefer", "return=representation: 200 with links.")


def read(
    operation_id: str,
    summary: str,
    body: Any,
    *,
    tag: str,
    description: str,
    errors: tuple[int, ...] = (),
    parameters: list | None = None,
    conditional: bool = True,
) -> Any:
    """A public read: no token (`security: []`, see public_operations_say_so), 200 with `body`
    (the serializer that writes it), 304 when `conditional`, and the problems of any operation
    plus `errors`."""
    responses = {200: body, 304: NOT_MODIFIED} if conditional else {200: body}
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=[tag],
        auth=[],
        parameters=[*(parameters or []), *(CONDITIONAL_READ if conditional else [])],
        responses={**responses, **problems(*ANY_OPERATION, *errors)},
    )


def write(
    operation_id: str,
    summary: str,
    *,
    tag: str,
    description: str,
    request: Any,
    responses: dict,
    parameters: list,
    errors: tuple[int, ...],
) -> Any:
    """A write with X-Access-Token. `request` is the view's input serializer or None; `errors`
    are the statuses this operation adds to those of any write (and of a write with a body)."""
    body_problems = WITH_BODY if request is not None else ()
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=[tag],
        request=request,
        parameters=parameters,
        responses={
            **responses,
            **problems(*ANY_OPERATION, *ANY_WRITE, *body_problems, *errors),
        },
    )


class AccessTokenScheme(OpenApiAuthenticationExtension):
    target_class = "rest.authentication.AccessTokenAuthentication"
    name = "accessToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Access-Token",
            "description": "A token from `manage.py issue_token <username>` or the admin;"
            " writes need it, reads do not.",
        }


class LinksFieldSchema(OpenApiSerializerFieldExtension):
    """A `_links` object: `curies`, then a Link per relation; the optional ones not required."""

    target_class = "rest.links.LinksField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field = self.target
        link = auto_schema.resolve_serializer(LinkSerializer, direction).ref
        properties: dict[str, Any] = {}
        if field.with_curies:
            curie = auto_schema.resolve_serializer(CurieSerializer, direction).ref
            properties["curies"] = build_array_type(curie)
        properties.update(dict.fromkeys(field.relations, link))
        required = [name for name in properties if name not in field.optional]
        if field.item_description:
            properties["item"] = {**build_array_type(link), "description": field.item_description}
            required.append("item")
        return build_object_type(properties=properties, required=required)


_HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def only_canonical_paths(endpoints: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """PREPROCESSING_HOOKS: the /api/ mount is the same API; describe it once, canonically."""
    return [endpoint for endpoint in endpoints if endpoint[0].startswith("/api/v1.2/")]


def public_operations_say_so(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: a read needs no token and says so with `security: []` (OpenAPI 3.0,
    Security Requirement Object: an empty array makes the requirement optional). drf-spectacular
    leaves `security` out of an operation without one, which a linter cannot tell from one whose
    requirement was forgotten."""
    for path_item in result["paths"].values():
        for method, operation in path_item.items():
            if method in _HTTP_METHODS:
                operation.setdefault("security", [])
    return result


def servers_from_request(
    result: dict[str, Any], request: Any = None, **kwargs: Any
) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: served over HTTP, the server URL is absolute, on the origin the
    document was fetched from (as every href of the API), so that a client generated from it has
    a working base URL. Without a request (`manage.py spectacular`) it stays relative: OpenAPI
    resolves it against wherever the document is served."""
    if request is not None:
        # New objects: the ones in the result are SPECTACULAR_SETTINGS["SERVERS"]'s own.
        result["servers"] = [
            {**server, "url": request.build_absolute_uri(server["url"])}
            for server in result.get("servers", [])
        ]
    return result


def token_operation(
    tag: str,
    operation_id: str,
    summary: str,
    description: str,
    *,
    request: Any = None,
    responses: dict,
    errors: tuple[int, ...] = (),
    parameters: list | None = None,
    write: bool = True,
    meanings: dict[int, str] | None = None,
) -> Any:
    """extend_schema for an operation of rest.views.TokenOnlyView: the token (401) and the
    blog's authorship (403) on every method, the write and body statuses where they apply."""
    statuses = (*ANY_OPERATION, 401, 403, 404, *errors)
    if write:
        statuses += ANY_WRITE
    if request is not None:
        statuses += WITH_BODY
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=[tag],
        request=request,
        parameters=parameters or [],
        responses={**responses, **problems(*statuses, meanings=meanings)},
    )
