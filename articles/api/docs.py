"""The API's documentation pages: `/docs/rels/{rel}` (the HTML pages that the `doc` curie points
to, one per relation), their index `/docs/rels/`, and `/api/docs/` (Swagger UI)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request

from config.problems import PROBLEM_TYPES


class SwaggerUIView(SpectacularSwaggerView):
    """drf-spectacular's Swagger UI page (its template is templates/drf_spectacular/)."""

    def options(self, request: Request, *args: object, **kwargs: object) -> HttpResponse:
        # DRF's metadata answer would be rendered by the page's HTML template renderer, which has
        # no template for it; the methods are all there is to say (DRF adds Allow).
        return HttpResponse(status=200)


@dataclass(frozen=True)
class Operation:
    method: str
    meaning: str
    request: str = ""
    response: str = ""


@dataclass(frozen=True)
class Relation:
    title: str
    meaning: str
    operations: tuple[Operation, ...]


_PAGE = (
    '{"pageIndex": 1, "pageSize": 10, "totalPages": 3, "{total}": 25, '
    '"_link": {"firstPage", "previousPage"?, "self", "nextPage"?, "lastPage"}, '
    '"_links": {"curies", the same five, "item": [{"href", "title"}, ...] (one link per member, '
    'in page order)}, "_embedded": [ ... ]}'
)
_ARTICLE = (
    '{"id": 7, "title": "...", "content": "..." (left out when none), '
    '"_links": {"curies", "self", "doc:blog" (with the blog\'s title), "doc:comments"}}'
)
_BLOG = (
    '{"id": 1, "title": "...", "description": "...", '
    '"_links": {"curies", "self", "doc:articles", "alternate" (the Atom feed, with its type)}}'
)
_COMMENT = (
    '{"id": 3, "author": "alice", "text": "...", "_links": {"curies", "self", "doc:article"}}'
)
_SEARCH = (
    "q (1 to 200 characters) searches title and content: on PostgreSQL full-text search in "
    'web-search syntax ("quoted phrase", or, -word; English stemming), the title weighing more '
    "than the content; on SQLite every word must occur in the title or the content "
    "(case-insensitive). sort is one of created, -created, updated, -updated, title, -title, "
    "or relevance (only with q; the default with q; without q the default is oldest first). "
    "Every page link keeps q and sort. A bad q or sort is a 400 problem."
)
_NEEDS_TOKEN = "Needs X-Access-Token."  # noqa: S105 (a sentence, not a secret)

RELATIONS: dict[str, Relation] = {
    "blogs": Relation(
        "Blogs",
        "The paged list of every blog, oldest first. Templated: {?pageIndex,pageSize}.",
        (Operation("GET", "A page of blogs.", "", _PAGE.replace("{total}", "totalBlogs")),),
    ),
    "blog": Relation(
        "Blog",
        "One blog. In the API root the link is templated: expand {id} with a blog id. On an "
        "article the link carries the blog's title.",
        (Operation("GET", "The blog.", "", _BLOG),),
    ),
    "articles": Relation(
        "Articles",
        "A blog's articles, paged, oldest first. Templated: {?pageIndex,pageSize,q,sort} "
        "(pageIndex from 1, pageSize 1 to 100, default 10). " + _SEARCH,
        (
            Operation(
                "GET",
                "A page of articles; with q, those that match it.",
                "",
                _PAGE.replace("{total}", "totalArticles"),
            ),
            Operation(
                "POST",
                f"Write a new article (201, Location). {_NEEDS_TOKEN} Idempotency-Key is honoured.",
                '{"title": "at most 200 characters", "content": "optional text or null"}',
                _ARTICLE,
            ),
        ),
    ),
    "search": Relation(
        "Search",
        "The articles of every blog (archived blogs included) that match q, a page at a time, "
        "each linking to its blog. In the API root; templated: {?pageIndex,pageSize,q,sort}. "
        "q is required here. " + _SEARCH,
        (
            Operation(
                "GET",
                "A page of the articles that match q, most relevant first.",
                "",
                _PAGE.replace("{total}", "totalArticles"),
            ),
        ),
    ),
    "article": Relation(
        "Article",
        "One article. The same resource as the article's `self` link.",
        (
            Operation("GET", "The article (410 once deleted).", "", _ARTICLE),
            Operation(
                "PUT",
                f"Replace title and content as a whole; If-Match makes it safe. {_NEEDS_TOKEN}",
                '{"title": "...", "content": "..." (left out: content removed)}',
                _ARTICLE,
            ),
            Operation(
                "DELETE",
                "Delete it for good (204, or 200 with Prefer: return=representation). "
                + _NEEDS_TOKEN,
                "",
                '{"_links": {"curies", "doc:blog"}}',
            ),
        ),
    ),
    "comments": Relation(
        "Comments",
        "An article's comments, paged, oldest first. Templated: {?pageIndex,pageSize}.",
        (
            Operation("GET", "A page of comments.", "", _PAGE.replace("{total}", "totalComments")),
            Operation(
                "POST",
                f"Comment as the token's user (201, Location). {_NEEDS_TOKEN}",
                '{"text": "1 to 10,000 characters"}',
                _COMMENT,
            ),
        ),
    ),
    "comment": Relation(
        "Comment",
        "One comment.",
        (
            Operation("GET", "The comment.", "", _COMMENT),
            Operation(
                "DELETE", f"By the comment's author or an author of the blog (204). {_NEEDS_TOKEN}"
            ),
        ),
    ),
}


@require_safe
def rel_doc(request: HttpRequest, rel: str) -> HttpResponse:
    relation = RELATIONS.get(rel)
    if relation is None:
        raise Http404("no such relation")
    return render(request, "docs/rel.html", {"rel": rel, "relation": relation})


@require_safe
def rel_index(request: HttpRequest) -> HttpResponse:
    problems = sorted(PROBLEM_TYPES.items(), key=lambda item: item[1].status)
    return render(request, "docs/rels.html", {"relations": RELATIONS.items(), "problems": problems})
