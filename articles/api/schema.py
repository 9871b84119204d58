"""OpenAPI (drf-spectacular): the real HAL shapes, the page shape, the token header, problems.

The views are plain APIViews that shape HAL themselves, so their documents are written here as
JSON Schema components (added by a postprocessing hook) and referenced from `extend_schema` on
each view method. Only the canonical /api/v1.2/ paths are described, relative to the server URL
(the API root). Each operation declares every status it can answer (those of any operation, of
any write, of a write with a body, and its own `errors`): a client generated from the document
must never meet an undeclared one. Descriptions are written here for API users; the code's
docstrings are not used (DISABLE_DOCSTRING_DESCRIPTIONS). docs/rest.md has the table.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from articles.api.feeds import ATOM_MEDIA_TYPE, FEED_ENTRIES
from articles.search import QUERY_MAX_LENGTH, SORTS

PROBLEM_MEDIA_TYPE = "application/problem+json"


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _links(*required: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    properties = {"curies": {"type": "array", "items": ref("Curie")}}
    properties.update({rel: ref("Link") for rel in (*required, *optional)})
    return {
        "type": "object",
        "required": ["curies", *required],
        "properties": properties,
    }


def _page(total_name: str, item: str) -> dict[str, Any]:
    page_links = _links("firstPage", "self", "lastPage", optional=("previousPage", "nextPage"))
    singular = {**page_links, "required": ["firstPage", "self", "lastPage"]}
    singular["properties"] = {k: v for k, v in page_links["properties"].items() if k != "curies"}
    return {
        "type": "object",
        "required": ["pageIndex", "pageSize", "totalPages", total_name, "_link", "_links"],
        "properties": {
            "pageIndex": {"type": "integer", "minimum": 1},
            "pageSize": {"type": "integer", "minimum": 1, "maximum": settings.PAGE_SIZE_MAX},
            "totalPages": {"type": "integer", "minimum": 0},
            total_name: {"type": "integer", "minimum": 0},
            "_link": {
                **singular,
                "description": "The page relations, as the specification's clients read them.",
            },
            "_links": {
                **page_links,
                "required": [*page_links["required"], "item"],
                "properties": {
                    **page_links["properties"],
                    "item": {
                        "type": "array",
                        "items": ref("Link"),
                        "description": "The page's members, in page order: each one's `self`"
                        " link with a title (RFC 6573 `item`; an array even of one or none).",
                    },
                },
                "description": "The same relations and `item`, for HAL clients.",
            },
            "_embedded": {"type": "array", "items": ref(item)},
        },
    }


# The Article as the API writes it (articles.api.serializers.article_representation).
ARTICLE: dict[str, Any] = {
    "type": "object",
    "required": ["id", "title", "_links"],
    "properties": {
        "id": {"type": "integer"},
        "title": {"type": "string", "maxLength": 200},
        "content": {"type": "string", "description": "Left out when the article has none."},
        "_links": _links("self", "doc:blog", "doc:comments", "doc:revisions"),
    },
}


def _article_in_page() -> dict[str, Any]:
    """An article as a page embeds it (articles.api.serializers.article_page_item)."""
    properties = dict(ARTICLE["properties"])
    properties["content"] = {
        "type": "string",
        "description": "Left out when the article has none, or when it is longer than"
        f" {settings.PAGE_CONTENT_MAX_CHARS} characters (PAGE_CONTENT_MAX_CHARS).",
    }
    properties["contentOmitted"] = {
        "type": "boolean",
        "enum": [True],
        "description": "Present when the content was left out for its length: follow `self`"
        " for the whole article.",
    }
    return {**ARTICLE, "properties": properties}


def _with_templates(schema: dict[str, Any]) -> dict[str, Any]:
    """The resource as HAL-FORMS (application/prs.hal-forms+json) answers it: with `_templates`
    (articles.api.forms)."""
    templates = {
        "type": "object",
        "description": "Only with application/prs.hal-forms+json: the writes the resource"
        " offers, by name (`default` first). Left out when none is open (an archived blog).",
        "additionalProperties": ref("HalFormsTemplate"),
    }
    return {**schema, "properties": {**schema["properties"], "_templates": templates}}


COMPONENTS: dict[str, Any] = {
    "Link": {
        "type": "object",
        "description": "A HAL link object; never a bare string, never null.",
        "required": ["href"],
        "properties": {
            # An absolute URI, or an RFC 6570 template when `templated` is true, which is not a
            # URI ("{?pageIndex,pageSize}"): no `format: uri` here.
            "href": {"type": "string", "description": "absolute URI, or URI template"},
            "templated": {"type": "boolean", "enum": [True]},
            "title": {"type": "string"},
            "type": {"type": "string", "description": "The media type of the target."},
        },
    },
    "Curie": {
        "type": "object",
        "required": ["name", "href", "templated"],
        "properties": {
            "name": {"type": "string", "enum": ["doc"]},
            "href": {"type": "string", "example": "https://blog.example/docs/rels/{rel}"},
            "templated": {"type": "boolean", "enum": [True]},
        },
    },
    "ApiRoot": {
        "type": "object",
        "properties": {"_links": _links("self", "doc:blogs", "doc:blog", "doc:search")},
    },
    "Blog": {
        "type": "object",
        "required": ["id", "title", "description", "_links"],
        "properties": {
            "id": {"type": "integer"},
            "title": {"type": "string"},
            "description": {"type": "string"},
            "_links": {
                **_links("self", "doc:articles", "alternate", "doc:webhooks"),
                "description": "`alternate` is the blog's Atom feed (`type` says so);"
                " `doc:webhooks` its webhooks, for its authors (with their token).",
            },
        },
    },
    "Article": _with_templates(ARTICLE),
    "DeletedArticle": {"type": "object", "properties": {"_links": _links("doc:blog")}},
    "Comment": {
        "type": "object",
        "required": ["id", "author", "text", "_links"],
        "properties": {
            "id": {"type": "integer"},
            "author": {"type": "string", "description": "The author's username."},
            "text": {"type": "string"},
            "_links": _links("self", "doc:article"),
        },
    },
    "BlogPage": _page("totalBlogs", "Blog"),
    "ArticleInPage": _article_in_page(),
    "ArticlePage": _with_templates(_page("totalArticles", "ArticleInPage")),
    "HalFormsTemplate": {
        "type": "object",
        "description": "A HAL-FORMS template: send `method` to `target` with a `contentType`"
        " body made of `properties`.",
        "required": ["method", "target", "contentType", "properties"],
        "properties": {
            "title": {"type": "string"},
            "method": {"type": "string", "enum": ["POST", "PUT", "DELETE"]},
            "target": {"type": "string", "format": "uri"},
            "contentType": {"type": "string", "enum": ["application/json"]},
            "properties": {"type": "array", "items": ref("HalFormsProperty")},
        },
    },
    "HalFormsProperty": {
        "type": "object",
        "required": ["name", "required"],
        "properties": {
            "name": {"type": "string"},
            "prompt": {"type": "string"},
            "type": {"type": "string", "enum": ["text", "textarea"]},
            "required": {"type": "boolean"},
            "minLength": {"type": "integer", "minimum": 0},
            "maxLength": {"type": "integer", "minimum": 1},
            "regex": {"type": "string", "format": "regex"},
            "value": {"type": "string", "description": "The current value (a replace)."},
        },
    },
    "CommentPage": _page("totalComments", "Comment"),
    # articles.api.views.revisions.revision_representation
    "Revision": {
        "type": "object",
        "required": ["revision", "title", "articleETag", "replacedAt", "_links"],
        "properties": {
            "revision": {
                "type": "integer",
                "minimum": 1,
                "description": "The article's version in this state.",
            },
            "title": {"type": "string", "maxLength": 200},
            "content": {"type": "string", "description": "Left out when the state had none."},
            "articleETag": {
                "type": "string",
                "description": "The ETag the article had in this state (its JSON representation).",
            },
            "replacedAt": {
                "type": "string",
                "format": "date-time",
                "description": "When a replace replaced this state (made the revision).",
            },
            "replacedBy": {
                "type": "string",
                "description": "The username of who replaced it; left out when unknown.",
            },
            "_links": _links("self", "doc:article"),
        },
    },
    "RevisionPage": _page("totalRevisions", "Revision"),
    "Problem": {
        "type": "object",
        "description": "RFC 9457 problem details.",
        "required": ["type", "title", "status", "detail", "instance"],
        "properties": {
            "type": {"type": "string", "format": "uri"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "instance": {"type": "string"},
            "errors": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
                "description": "For 400 and 422: each offending field or parameter.",
            },
        },
    },
}

_PROBLEM_MEANINGS = {
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
    503: "The database is unreachable or maintenance is on (Retry-After).",
    507: "The database is out of space; nothing was written.",
}

# What any operation can answer: a request the service cannot read, the Accept header, the rate
# limit, a fault, the database or maintenance.
ANY_OPERATION = (400, 406, 429, 500, 503)
# What any write can answer besides: the token, and a database out of space.
ANY_WRITE = (401, 507)
# What a write with a body can answer besides: how the body is sent and what it holds.
WITH_BODY = (411, 413, 415, 422)


def problems(*statuses: int, meanings: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    """The problem responses of `statuses`; `meanings` says what some of them mean for one
    operation in particular."""
    meanings = {**_PROBLEM_MEANINGS, **(meanings or {})}
    return {
        (status, PROBLEM_MEDIA_TYPE): OpenApiResponse(ref("Problem"), meanings[status])
        for status in sorted(set(statuses))
    }


PAGE_PARAMETERS = [
    OpenApiParameter("pageIndex", int, description="1-based page number (default 1)."),
    OpenApiParameter(
        "pageSize",
        int,
        description=f"Items per page, 1 to {settings.PAGE_SIZE_MAX}"
        f" (default {settings.PAGE_SIZE_DEFAULT}).",
    ),
]


def search_parameters(*, q_required: bool = False) -> list[OpenApiParameter]:
    """`q` and `sort` of a page of articles (articles.search)."""
    return [
        OpenApiParameter(
            "q",
            {"type": "string", "minLength": 1, "maxLength": QUERY_MAX_LENGTH},
            required=q_required,
            description=f"Search text, 1 to {QUERY_MAX_LENGTH} characters, not blank: on"
            ' PostgreSQL web-search syntax ("quoted phrase", `or`, `-word`) over title and'
            " content; on SQLite every word must occur in the title or the content"
            " (case-insensitive). Every page link keeps it.",
        ),
        OpenApiParameter(
            "sort",
            str,
            enum=list(SORTS),
            description="The order; `-` for descending, ties broken by id. `relevance` only"
            " with `q`. Default: `relevance` with `q`, else oldest first (the id).",
        ),
    ]


SEARCH_PARAMETERS = search_parameters()
_IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description="Write only if the ETag you read still matches (else 412); `*` matches any.",
)
_IF_UNMODIFIED = OpenApiParameter(
    "If-Unmodified-Since",
    str,
    OpenApiParameter.HEADER,
    description="Write only if unchanged since this HTTP-date (else 412); ignored with If-Match.",
)
_IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match", str, OpenApiParameter.HEADER, description="304 when the ETag matches."
)
_IF_MODIFIED = OpenApiParameter(
    "If-Modified-Since",
    str,
    OpenApiParameter.HEADER,
    description="304 when unchanged since this HTTP-date; ignored with If-None-Match.",
)
CONDITIONAL_READ = [_IF_NONE_MATCH, _IF_MODIFIED]
CONDITIONAL_WRITE = [_IF_MATCH, _IF_UNMODIFIED]
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="A retried POST with the same key returns the first answer (kept 24 h).",
)
PREFER = OpenApiParameter(
    "Prefer", str, OpenApiParameter.HEADER, description="return=representation: 200 with links."
)


def read(
    operation_id: str,
    summary: str,
    body: str,
    *,
    tag: str,
    description: str,
    errors: tuple[int, ...] = (),
    parameters: list | None = None,
    conditional: bool = True,
) -> Any:
    """A public read: no token (`security: []`, see public_operations_say_so), 200 with `body`,
    304 when `conditional`, and the problems of any operation plus `errors`."""
    responses: dict[Any, Any] = {200: ref(body)}
    if conditional:
        responses[304] = OpenApiResponse(None, "Not modified: your copy is current.")
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
    """A write with X-Access-Token. `request` is the view's input serializer (the real one, so the
    schema cannot drift) or None; `errors` are the statuses this operation adds to those of
    any write (and of a write with a body)."""
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
    target_class = "articles.api.authentication.AccessTokenAuthentication"
    name = "accessToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Access-Token",
            "description": "A token from `manage.py issue_token <username>` or the admin;"
            " writes need it, reads do not.",
        }


# DISABLE_DOCSTRING_DESCRIPTIONS keeps the serializers' docstrings (written for maintainers) out
# of the schema; the request bodies get these instead.
_REQUEST_BODY_DESCRIPTIONS = {
    "ArticleInput": "The article's fields. `id` and any other unknown field are ignored (the URL"
    " names the article); a PUT without `content` removes the content.",
    "CommentInput": "The comment's text; its author is the token's user.",
}
_HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def only_canonical_paths(endpoints: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """PREPROCESSING_HOOKS: the /api/ mount is the same API; describe it once, canonically."""
    return [endpoint for endpoint in endpoints if endpoint[0].startswith("/api/v1.2/")]


def _problem_response(status: int) -> dict[str, Any]:
    return {
        "description": _PROBLEM_MEANINGS[status],
        "content": {PROBLEM_MEDIA_TYPE: {"schema": ref("Problem")}},
    }


def _feed_operation(blog_read: dict[str, Any]) -> dict[str, Any]:
    """The blog's Atom feed (articles.api.feeds): a plain Django view, which drf-spectacular
    does not see, described here with the blog read's parameters (the blog id, the conditions).
    """
    return {
        "operationId": "blog_feed",
        "summary": "A blog's Atom feed",
        "description": f"The blog's {FEED_ENTRIES} newest articles as an Atom feed (RFC 4287),"
        " newest first: each entry's link is the article, its summary the article's text,"
        f" cut to {settings.PAGE_CONTENT_MAX_CHARS} characters. The blog's `alternate` link"
        " leads here.",
        "tags": ["blogs"],
        "parameters": blog_read["parameters"],
        "responses": {
            "200": {
                "description": "The feed.",
                "content": {ATOM_MEDIA_TYPE: {"schema": {"type": "string"}}},
            },
            "304": {"description": "Not modified: your copy is current."},
            **{str(status): _problem_response(status) for status in (*ANY_OPERATION, 404)},
        },
        "security": [],
    }


def add_hal_components(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the HAL components every operation refers to, and the blog's feed
    beside the blog."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(COMPONENTS)
    for name, description in _REQUEST_BODY_DESCRIPTIONS.items():
        schemas[name]["description"] = description
    paths = {}
    for path, item in result["paths"].items():
        paths[path] = item
        if path == "/blogs/{blog_id}":
            paths["/blogs/{blog_id}/feed"] = {"get": _feed_operation(item["get"])}
    result["paths"] = paths
    return result


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
