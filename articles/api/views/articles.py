"""A blog's articles: the page, and one article (read, create, replace, delete)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from articles import search as article_search
from articles import services, slugs
from articles.api.inputs import ArticleInputSerializer
from articles.api.lookups import (
    get_article_to_write,
    get_blog_article,
    get_blog_for_reading,
    get_blog_to_write,
    search_key,
    search_params,
)
from articles.api.permissions import ensure_may_write_articles
from articles.api.schema import search_parameters
from articles.api.serializers import (
    ArticlePageSerializer,
    ArticleSerializer,
    DeletedArticleSerializer,
)
from articles.etags import article_etag
from articles.exceptions import ArticleLocked, BlogArchived
from articles.models import Article
from blogs.models import Blog
from core import representations
from core.edge import share
from rest.conditional import (
    Validators,
    conditional_read,
    evaluate,
    expected_version,
    strong_etag,
    wants_forms,
)
from rest.idempotency import run_idempotent
from rest.links import api_url
from rest.openapi import (
    ANY_OPERATION,
    CONDITIONAL_WRITE,
    IDEMPOTENCY_KEY,
    PAGE_PARAMETERS,
    PREFER,
    problems,
    read,
    write,
)
from rest.paging import page_body, page_params
from rest.views import ApiView, valid_body


def article_validators(article: Article) -> Validators:
    return Validators(article_etag(article), article.updated_at)


def articles_page_validators(
    blog: Blog, page_index: int, page_size: int, search: dict[str, str]
) -> Validators:
    # Every article write bumps Blog.revision in the same transaction: no scan of the page (a
    # search or an order of the blog's articles changes only with them, too).
    by = search_key(search) if search else ()
    return Validators(
        strong_etag("articles", blog.pk, blog.revision, page_index, page_size, *by),
        blog.updated_at,
    )


def read_article_body(request: Request) -> dict[str, Any]:
    """The validated title and content of a POST or PUT body (400 or 422 otherwise)."""
    data = valid_body(ArticleInputSerializer, request)
    return {
        "title": data["title"],
        "content": data.get("content"),
        "slug": data.get("slug"),
        "tags": data.get("tags"),
        "content_format": data.get("contentFormat"),
    }


def article_response(request: Request, article: Article, *, status: int = 200) -> Response:
    data = ArticleSerializer(article, context={"request": request}).data
    return article_validators(article).apply(Response(data, status=status))


def article_to_write(request: Request, blog_id: int, article_id: int) -> Article:
    """The live article a PUT or DELETE writes, its preconditions met. The services' state
    checks come first, as RFC 9110 section 13.2.1 lets a 409 or 423 win over 412; the services
    check again under the row lock."""
    article = get_article_to_write(request, blog_id, article_id)
    if article.blog.archived:
        raise BlogArchived
    if article.locked:
        raise ArticleLocked
    evaluate(request, article_validators(article))
    return article


def cached_read(
    request: Request,
    key: str | None,
    generations: list[str],
    build: Callable[[], tuple[Validators, dict[str, Any]]],
) -> HttpResponse:
    """A representation and its validators from the representation cache (core.representations)
    while `generations` stand, else from `build` (always without a `key`); answered 200 or 304.
    A hot one costs no SQL.

    Hrefs are absolute: a cached representation is one origin's (the host is normalised). The
    HAL-FORMS body has `_templates` that the HAL one has not: each is kept under its own key
    (the HTML page is rendered from the HAL body)."""
    if key is None:
        validators, data = build()
    else:
        body = "forms" if wants_forms(request) else "hal"
        validators, data = representations.cached(
            f"rep:{request.build_absolute_uri('/')}:{body}:{key}", generations, build
        )
    # The edge keeps it under the same generations (core.edge).
    return conditional_read(request, validators, generations, data)


class ArticleListView(ApiView):
    @read(
        "articles_list",
        "A page of a blog's articles",
        ArticlePageSerializer,
        tag="articles",
        description="The blog's articles, a page at a time, oldest first (ascending id) unless"
        " `sort` says otherwise. With `q`, only the articles that match it, most relevant first"
        " (full-text search on PostgreSQL; every word, case-insensitive, on SQLite): every page"
        " link keeps `q` and `sort`. An article whose content is too long for a page comes"
        " without it and with `contentOmitted`: follow its `self` link for the whole article. A"
        " `pageIndex` past the last page is an empty page.",
        errors=(404,),
        parameters=[*PAGE_PARAMETERS, *search_parameters()],
    )
    def get(self, request: Request, blog_id: int) -> HttpResponse:
        page_index, page_size = page_params(request)  # a 400 even for a missing blog
        search = search_params(request)
        generations = [
            representations.blog_generation(blog_id),
            representations.blog_articles_generation(blog_id),
        ]

        def build() -> tuple[Validators, dict[str, Any]]:
            blog = get_blog_for_reading(blog_id)
            items = article_search.blog_article_page(
                blog=blog,
                query=search.get("q"),
                sort=search.get("sort"),
                page_index=page_index,
                page_size=page_size,
                tag=search.get("tag"),
            )
            body = page_body(
                request,
                ArticlePageSerializer,
                items,
                collection_url=api_url(request, "articles", blog_id=blog.pk),
                search=search,
                blog=blog,
            )
            return articles_page_validators(blog, page_index, page_size, search), body

        order = f":{search['sort']}" if "sort" in search else ""
        tag = f":tag:{search['tag']}" if "tag" in search else ""
        key = f"articles:{blog_id}:{page_index}:{page_size}{order}{tag}"
        # Search pages are not cached: each text is its own entry, mostly read once, and would
        # push the hot pages out; a broad one's ranking is (docs/decisions/search.md). Their
        # ETag still gives 304s.
        return cached_read(request, None if "q" in search else key, generations, build)

    @write(
        "article_create",
        "Write a new article",
        tag="articles",
        description="Needs the token of an author of the blog (or of an editor). Answers 201"
        " with the article, its `Location`, `ETag` and `Last-Modified`. With an"
        " `Idempotency-Key`, a retry answers what the first request did instead of writing a"
        " second article (409 while the first is still being processed). 409 also when the"
        " editors archived the blog.",
        request=ArticleInputSerializer,
        responses={201: ArticleSerializer},
        parameters=[IDEMPOTENCY_KEY],
        errors=(403, 404, 409),
    )
    def post(self, request: Request, blog_id: int) -> Response:
        blog = get_blog_to_write(request, blog_id)
        ensure_may_write_articles(request, blog)
        if blog.archived:
            raise BlogArchived

        def create() -> Response:
            fields = read_article_body(request)
            article = services.article_create(blog=blog, actor=request.user, **fields)
            response = article_response(request, article, status=201)
            response["Location"] = response.data["_links"]["self"]["href"]
            return response

        return run_idempotent(request, create)


class ArticleView(ApiView):
    # The browsable page's PUT form starts from the fields this body takes (rest.negotiation).
    put_serializer = ArticleInputSerializer

    @read(
        "article_read",
        "An article",
        ArticleSerializer,
        tag="articles",
        description="The article, with links to its blog and its comments. `content` is left"
        " out when the article has none. An article that was deleted answers 410 Gone.",
        errors=(404, 410),
    )
    def get(self, request: Request, blog_id: int, article_id: int) -> HttpResponse:
        def build() -> tuple[Validators, dict[str, Any]]:
            article = get_blog_article(blog_id, article_id)
            data = ArticleSerializer(article, context={"request": request}).data
            return article_validators(article), data

        # Fresh while neither the article nor its blog (its title is in doc:blog) changed.
        return cached_read(
            request,
            f"article:{blog_id}:{article_id}",
            [
                representations.article_generation(article_id),
                representations.blog_generation(blog_id),
            ],
            build,
        )

    @write(
        "article_replace",
        "Replace an article",
        tag="articles",
        description="Replaces the whole article: a body without `content` removes the content;"
        " an `id` in the body is ignored. Send the `ETag` you read as `If-Match` so that no"
        " other change is overwritten (412 when the article changed meanwhile). Answers 409"
        " when the blog is archived, 423 when the editors locked the article, 410 when it was"
        " deleted.",
        request=ArticleInputSerializer,
        responses={200: ArticleSerializer},
        parameters=CONDITIONAL_WRITE,
        errors=(403, 404, 409, 410, 412, 423),
    )
    def put(self, request: Request, blog_id: int, article_id: int) -> Response:
        article = article_to_write(request, blog_id, article_id)
        fields = read_article_body(request)
        updated = services.article_replace(
            article=article,
            expected_version=expected_version(request, article.version),
            actor=request.user,
            **fields,
        )
        updated.blog = article.blog
        return article_response(request, updated)

    @write(
        "article_delete",
        "Delete an article",
        tag="articles",
        description="Deletes the article for good: from then on it answers 410 Gone. Answers"
        " 204 with a `Link` header to the blog, or, with `Prefer: return=representation`, 200"
        " with the blog link in the body. `If-Match` and `If-Unmodified-Since` as for a PUT;"
        " 409 when the blog is archived, 423 when the article is locked.",
        request=None,
        responses={204: OpenApiResponse(None, "Deleted."), 200: DeletedArticleSerializer},
        parameters=[*CONDITIONAL_WRITE, PREFER],
        errors=(403, 404, 409, 410, 412, 423),
    )
    def delete(self, request: Request, blog_id: int, article_id: int) -> Response:
        article = article_to_write(request, blog_id, article_id)
        services.article_delete(
            article=article,
            expected_version=expected_version(request, article.version),
            actor=request.user,
        )
        # RFC 9110 section 15.3.5: a 204 has no content, so the blog link goes in a Link header
        # (RFC 8288); the body the specification shows comes with Prefer: return=representation
        # (RFC 7240).
        if _prefers_representation(request):
            response = Response(
                DeletedArticleSerializer(article, context={"request": request}).data, status=200
            )
            response["Preference-Applied"] = "return=representation"
        else:
            response = Response(status=204)
        response["Link"] = _blog_link_header(request, article.blog)
        return response


def _prefers_representation(request: Request) -> bool:
    preferences = request.headers.get("Prefer", "")
    return any(
        part.split(";")[0].strip().lower() == "return=representation"
        for part in preferences.split(",")
    )


def _blog_link_header(request: Request, blog: Blog) -> str:
    rel = request.build_absolute_uri(reverse("rel-doc", kwargs={"rel": "blog"}))
    title = blog.title
    if title.isascii() and title.isprintable():
        escaped = title.replace("\\", "\\\\").replace('"', '\\"')
        title_param = f'title="{escaped}"'
    else:
        # RFC 8288 section 3.4.1: a non-ASCII title goes in title* (RFC 8187 encoding).
        title_param = f"title*=UTF-8''{quote(title, safe='')}"
    return f'<{api_url(request, "blog", blog_id=blog.pk)}>; rel="{rel}"; {title_param}'


class ArticleBySlugView(ApiView):
    @extend_schema(
        operation_id="article_by_slug",
        summary="An article by its slug",
        description="308 to the article whose slug (current, or one it had before) this is,"
        " in `Location`; 404 when no article of the blog has or had it.",
        tags=["articles"],
        auth=[],
        responses={
            308: OpenApiResponse(None, "The article's URL is in `Location`."),
            **problems(*ANY_OPERATION, 404),
        },
    )
    def get(self, request: Request, blog_id: int, slug: str) -> HttpResponse:
        article_id = (
            slugs.slug_owner(blog_id=blog_id, slug=slug) if slugs.slug_is_valid(slug) else None
        )
        if article_id is None:
            raise NotFound("No article of this blog has that slug.")
        location = api_url(request, "article", blog_id=blog_id, article_id=article_id)
        response = HttpResponse(status=308, headers={"Location": location})
        # Another slug of the blog's articles changes only with them.
        return share(response, [representations.blog_articles_generation(blog_id)])
