"""An article's revisions: the states its replaces replaced (articles.services), read-only.

A revision never changes once made, but it can go: pruned past ARTICLE_REVISIONS_KEPT (404), or
with its article (410, like the article). Restoring one is a PUT of its title and content to
the article, with If-Match (docs/rest.md)."""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpResponse
from rest_framework.request import Request

from articles import selectors
from articles.api.lookups import get_blog_article
from articles.api.serializers import RevisionPageSerializer, RevisionSerializer
from articles.models import Article
from core import representations
from rest.conditional import Validators, conditional_read, strong_etag
from rest.links import api_url
from rest.openapi import PAGE_PARAMETERS, read
from rest.paging import page_body, page_params
from rest.views import ApiView


def body_validators(kind: str, data: dict[str, Any], last_modified: Any) -> Validators:
    """Validators from the body itself: a revision is immutable, but the name of the user who
    made it can change, and a page moves with every replace; a tag of the bytes is always
    true, and costs nothing next to the two queries the body needs."""
    return Validators(strong_etag(kind, json.dumps(data, sort_keys=True)), last_modified)


def _answer(
    request: Request, article: Article, validators: Validators, data: dict[str, Any]
) -> HttpResponse:
    # Revisions are made, pruned and deleted by the article's writes only (and go with its blog).
    generations = [
        representations.article_generation(article.pk),
        representations.blog_generation(article.blog_id),
    ]
    return conditional_read(request, validators, generations, data)


class RevisionListView(ApiView):
    @read(
        "revisions_list",
        "A page of an article's revisions",
        RevisionPageSerializer,
        tag="revisions",
        description="The states the article's replaces replaced, newest first: each with its"
        " revision number (the article's version then), title, content, the ETag the article"
        " had, when it was replaced and by whom. At most ARTICLE_REVISIONS_KEPT (default 50)"
        " are kept. Readable in archived blogs and of locked articles; 410 once the article is"
        " deleted (its revisions went with it).",
        errors=(404, 410),
        parameters=PAGE_PARAMETERS,
    )
    def get(self, request: Request, blog_id: int, article_id: int) -> HttpResponse:
        page_index, page_size = page_params(request)
        article = get_blog_article(blog_id, article_id)
        page = selectors.revision_page(article=article, page_index=page_index, page_size=page_size)
        for item in page.items:
            item.article = article
        body = page_body(
            request,
            RevisionPageSerializer,
            page,
            collection_url=api_url(
                request, "revisions", blog_id=article.blog_id, article_id=article.pk
            ),
        )
        # Every replace moves updated_at and makes (or prunes) revisions.
        return _answer(
            request, article, body_validators("revisions", body, article.updated_at), body
        )


class RevisionView(ApiView):
    @read(
        "revision_read",
        "A revision of an article",
        RevisionSerializer,
        tag="revisions",
        description="One kept state of the article, with a link up to the article. To restore"
        " it, PUT its `title` and `content` to the article with the article's current ETag as"
        " `If-Match`. 404 when there is no such revision (or it was pruned), 410 once the"
        " article is deleted.",
        errors=(404, 410),
    )
    def get(self, request: Request, blog_id: int, article_id: int, revision: int) -> HttpResponse:
        article = get_blog_article(blog_id, article_id)
        found = selectors.revision_of(article=article, number=revision)
        if found is None:
            raise Http404("No such revision.")
        found.article = article
        data = RevisionSerializer(found, context={"request": request}).data
        return _answer(
            request, article, body_validators("revision", data, found.history_date), data
        )
