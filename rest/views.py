"""What every API view shares: media types, token authentication, rate limits, problems."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import MethodNotAllowed, ParseError
from rest_framework.request import Request
from rest_framework.views import APIView

from articles import selectors
from articles.api.permissions import WritesNeedToken
from articles.exceptions import ArticleGone
from articles.models import Article
from blogs.models import Blog
from core.ratelimit import ReadRateThrottle, WriteRateThrottle
from rest.authentication import AccessTokenAuthentication
from rest.conditional import rendered_media_type, variant_tag
from rest.exceptions import ServiceUnavailable, exception_handler
from rest.negotiation import (
    BrowsableHalRenderer,
    HalFormsRenderer,
    HalJsonRenderer,
    MediaTypeVersioning,
    PlainJsonRenderer,
    StrictContentNegotiation,
    StrictHalJsonParser,
    StrictJsonParser,
)


class ApiView(APIView):
    renderer_classes = [HalJsonRenderer, PlainJsonRenderer, HalFormsRenderer, BrowsableHalRenderer]
    parser_classes = [StrictJsonParser, StrictHalJsonParser]
    authentication_classes = [AccessTokenAuthentication]
    permission_classes = [WritesNeedToken]
    throttle_classes = [ReadRateThrottle, WriteRateThrottle]
    versioning_class = MediaTypeVersioning
    content_negotiation_class = StrictContentNegotiation

    def get_exception_handler(self):
        return exception_handler

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if settings.MAINTENANCE_MODE:
            raise ServiceUnavailable("The service is in maintenance; retry later.", 60)
        # A method the resource does not offer is 405 whoever asks: checked before the token,
        # which DRF would otherwise demand first (401) for a method that is not there at all.
        if not hasattr(self, request.method.lower()):
            raise MethodNotAllowed(request.method)
        super().initial(request, *args, **kwargs)

    def finalize_response(
        self, request: Request, response: HttpResponse, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.has_header("ETag"):
            response["ETag"] = variant_tag(response["ETag"], rendered_media_type(request))
        state = getattr(request, "rate_limit", None)
        if state is not None:
            for name, value in state.headers().items():
                response[name] = value
        return response


def json_object(request: Request) -> dict[str, Any]:
    """The request's body, which must be a JSON object: an empty body is malformed (400), not an
    object without fields (which would be a 422 for the missing ones)."""
    if not request.META.get("CONTENT_LENGTH", "0").strip("0"):
        raise ParseError("The body is empty; send a JSON object.")
    if not isinstance(request.data, dict):
        raise ParseError("The body must be a JSON object.")
    return request.data


def get_blog(blog_id: int) -> Blog:
    return get_object_or_404(Blog, pk=blog_id)


def get_blog_to_write(request: Request, blog_id: int) -> Blog:
    """The blog, with whether the request's user is one of its authors read in the same query
    (Blog.is_author then costs none), or 404."""
    blog = selectors.blog_for_writing(blog_id=blog_id, writer=request.user)
    if blog is None:
        raise Http404("No Blog matches the given query.")
    return blog


def get_article(blog: Blog, article_id: int) -> Article:
    """The live article of `blog`: 404 when it never existed there, 410 when it was deleted."""
    article = get_object_or_404(Article, pk=article_id, blog_id=blog.pk)
    return _live(article, blog)


def get_blog_for_reading(blog_id: int) -> Blog:
    """The blog with what a page of its articles needs (selectors.blog_for_reading), or 404."""
    blog = selectors.blog_for_reading(blog_id=blog_id)
    if blog is None:
        raise Http404("No Blog matches the given query.")
    return blog


def get_blog_article(blog_id: int, article_id: int) -> Article:
    """get_article(get_blog(blog_id), article_id) in one query (the blog joined) for reads.

    When no row comes back the blog is looked up on its own, so a missing blog is still the
    blog's 404 and a missing article the article's.
    """
    article = selectors.article_with_blog(blog_id=blog_id, article_id=article_id)
    if article is None:
        get_blog_for_reading(blog_id)
        raise Http404("No Article matches the given query.")
    return _live(article, article.blog)


def get_article_to_write(
    request: Request, blog_id: int, article_id: int, ensure_may_write: Any
) -> Article:
    """The live article to replace or delete, its blog joined in the same query, after
    `ensure_may_write(request, blog)`: the answers of get_blog, the rights check and get_article
    in that order (404 for the blog, 403, then 404 or 410 for the article), one query fewer."""
    article = selectors.article_with_blog(
        blog_id=blog_id, article_id=article_id, writer=request.user
    )
    if article is None:
        blog = get_blog(blog_id)
        ensure_may_write(request, blog)
        raise Http404("No Article matches the given query.")
    ensure_may_write(request, article.blog)
    return _live(article, article.blog)


def _live(article: Article, blog: Blog) -> Article:
    if article.is_deleted:
        raise ArticleGone
    article.blog = blog
    return article
