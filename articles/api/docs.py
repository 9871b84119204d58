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
    '"_links": {"curies", "self", "doc:articles", "alternate" (the Atom feed, with its type), '
    '"doc:webhooks"}}'
)
_COMMENT = (
    '{"id": 3, "author": "alice", "text": "...", "_links": {"curies", "self", "doc:article"}}'
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
        "A blog's articles, paged, oldest first. Templated: {?pageIndex,pageSize} (pageIndex "
        "from 1, pageSize 1 to 100, default 10).",
        (
            Operation("GET", "A page of articles.", "", _PAGE.replace("{total}", "totalArticles")),
            Operation(
                "POST",
                f"Write a new article (201, Location). {_NEEDS_TOKEN} Idempotency-Key is honoured.",
                '{"title": "at most 200 characters", "content": "optional text or null"}',
                _ARTICLE,
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
