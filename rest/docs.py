"""The API's documentation pages: `/docs/rels/{rel}` (the HTML pages that the `doc` curie points
to, one per relation), their index `/docs/rels/`, and `/api/docs/` (Swagger UI)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request

from core.problems import PROBLEM_TYPES


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
    '"_links": {"curies", "self", "doc:blog" (with the blog\'s title), "doc:comments", '
    '"doc:revisions"}}'
)
_BLOG = (
    '{"id": 1, "title": "...", "description": "...", '
    '"_links": {"curies", "self", "doc:articles", "alternate" (the Atom feed, with its type), '
    '"doc:webhooks"}}'
)
_COMMENT = (
    '{"id": 3, "author": "alice", "text": "...", "_links": {"curies", "self", "doc:article"}}'
)
_REVISION = (
    '{"revision": 3, "title": "...", "content": "..." (left out when none), "articleETag": '
    '"\\"...\\"" (the ETag the article had), "replacedAt": "2026-11-25T15:00:00Z", '
    '"replacedBy": "alice" (left out when unknown), "_links": {"curies", "self", "doc:article"}}'
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
_AUTHORS_ONLY = "Needs X-Access-Token of an author of the blog (401 without, 403 for others)."
_WEBHOOK = (
    '{"id": 4, "url": "https://...", "events": ["article.created"] or ["*"], "active": true, '
    '"disabledReason": null or why, "disabledAt", "createdAt", "previousSecretExpiresAt", '
    '"_links": {"curies", "self", "doc:blog", "doc:deliveries", "doc:rotateSecret"}}'
)
_DELIVERY = (
    '{"id": 9, "eventId": "evt_...", "eventType": "article.created", "status": "pending" | '
    '"succeeded" | "failed", "attemptCount", "nextAttemptAt", "retryUntil", "completedAt", '
    '"lastError", "attempts": [{"at", "succeeded", "statusCode", "durationMs", "response", '
    '"error"}], "_links": {"curies", "self", "doc:webhook", "doc:redeliver" (when failed)}}'
)

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
    "revisions": Relation(
        "Revisions",
        "An article's revisions: each replace (a PUT, or an edit in the admin) keeps the state it"
        " replaced. Newest first, paged like articles. Templated: {?pageIndex,pageSize}. At most"
        " ARTICLE_REVISIONS_KEPT (default 50) are kept, the oldest pruned; they go with the"
        " article when it is deleted (410). Read-only: to restore one, PUT its title and content"
        " to the article with If-Match.",
        (Operation("GET", "A page of revisions.", "", _PAGE.replace("{total}", "totalRevisions")),),
    ),
    "revision": Relation(
        "Revision",
        "One revision of an article: a state that a replace replaced, immutable. Its number is"
        " the article's version in that state, `articleETag` the ETag the article had then."
        " To restore it, PUT its title and content (content left out when it has none) to its"
        " doc:article link with the article's current ETag as If-Match (412 if the article"
        " changed meanwhile); that replace keeps the state it replaces as a new revision.",
        (
            Operation(
                "GET",
                "The revision (404 once pruned, 410 once the article is deleted).",
                "",
                _REVISION,
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
    "webhooks": Relation(
        "Webhooks",
        "A blog's webhooks, paged, oldest first. Templated: {?pageIndex,pageSize}. "
        + _AUTHORS_ONLY
        + " docs/webhooks.md describes the messages and how to verify their signatures.",
        (
            Operation("GET", "A page of webhooks.", "", _PAGE.replace("{total}", "totalWebhooks")),
            Operation(
                "POST",
                "Subscribe (201, Location); the answer carries the signing secret, shown once.",
                '{"url": "https://...", "events": ["article.created", ...] or ["*"], '
                '"active": true (optional)}',
                _WEBHOOK.replace('"id": 4,', '"id": 4, "secret": "whsec_...",'),
            ),
        ),
    ),
    "webhook": Relation(
        "Webhook",
        "One webhook subscription. " + _AUTHORS_ONLY,
        (
            Operation("GET", "The webhook (never its secret).", "", _WEBHOOK),
            Operation("PATCH", "Change url, events or active.", '{"active": true}', _WEBHOOK),
            Operation("DELETE", "Delete it and its deliveries (204)."),
        ),
    ),
    "rotateSecret": Relation(
        "Rotate the secret",
        "A new signing secret, shown once; the previous one signs too for 24 hours. "
        + _AUTHORS_ONLY,
        (Operation("POST", "Rotate (200, with the new secret).", "", _WEBHOOK),),
    ),
    "deliveries": Relation(
        "Deliveries",
        "A webhook's deliveries, newest first, with every attempt. Templated:"
        " {?pageIndex,pageSize}. " + _AUTHORS_ONLY,
        (
            Operation(
                "GET", "A page of deliveries.", "", _PAGE.replace("{total}", "totalDeliveries")
            ),
        ),
    ),
    "redeliver": Relation(
        "Redeliver",
        "Send a failed delivery again, with the same webhook-id. " + _AUTHORS_ONLY,
        (
            Operation(
                "POST", "202 with the delivery, pending again; 409 unless it failed.", "", _DELIVERY
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
