"""OpenAPI of the article resources beyond their serializers: the search parameters, and the
blog's Atom feed, a plain Django view that drf-spectacular does not see."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter

from articles.api.feeds import ATOM_MEDIA_TYPE, FEED_ENTRIES
from articles.search import QUERY_MAX_LENGTH, SORTS


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


def add_blog_feed(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the blog's Atom feed (articles.api.feeds) beside the blog, with the
    blog read's parameters (the blog id, the conditions), 304 and problems."""
    paths = {}
    for path, item in result["paths"].items():
        paths[path] = item
        if path == "/blogs/{blog_id}":
            read = item["get"]
            feed = {
                "operationId": "blog_feed",
                "summary": "A blog's Atom feed",
                "description": f"The blog's {FEED_ENTRIES} newest articles as an Atom feed"
                " (RFC 4287), newest first: each entry's link is the article, its summary the"
                f" article's text, cut to {settings.PAGE_CONTENT_MAX_CHARS} characters. The"
                " blog's `alternate` link leads here.",
                "tags": ["blogs"],
                "parameters": read["parameters"],
                "responses": {
                    **read["responses"],
                    "200": {
                        "description": "The feed.",
                        "content": {ATOM_MEDIA_TYPE: {"schema": {"type": "string"}}},
                    },
                },
                "security": [],
            }
            paths["/blogs/{blog_id}/feed"] = {"get": feed}
    result["paths"] = paths
    return result
