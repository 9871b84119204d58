"""A blog's Atom feed (RFC 4287), built with Django's syndication framework.

The feed is not a HAL resource, so it is a plain Django view beside the DRF ones; it keeps the
rules every read of the API follows: 503 in maintenance, 406 when the Accept header rules Atom
out, the read rate limit, a problem for a missing blog, and ETag/Last-Modified with 304 and 412
from the API's one evaluator (rest.conditional). Its validators come from Blog.revision, which
every article write moves in the same transaction, so no article is read to answer a 304.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from django.utils.text import Truncator
from django.views import View

from articles import content as article_content
from articles.models import Article
from blogs.models import Blog
from core import representations
from core.edge import share
from core.negotiation import preferred
from core.problems import problem_response
from core.ratelimit import count_read
from rest.conditional import Validators, evaluate, strong_etag
from rest.exceptions import PreconditionFailed
from rest.links import api_url

ATOM_MEDIA_TYPE = "application/atom+xml"
# Feed readers poll; the newest entries are what they need, and the cost stays bounded.
FEED_ENTRIES = 20
# Atom also travels as generic XML; a client asking only for that gets the same bytes.
_ACCEPTABLE = (ATOM_MEDIA_TYPE, "application/xml")
_ALLOWED_METHODS = "GET, HEAD, OPTIONS"
# What XML 1.0 cannot carry (section 2.2) but a JSON string can: shown as U+FFFD instead of
# failing the whole feed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def feed_validators(blog: Blog) -> Validators:
    # The entry count is in the tag: changing it changes the feed's bytes.
    return Validators(strong_etag("feed", blog.pk, blog.revision, FEED_ENTRIES), blog.updated_at)


class BlogAtomFeed(Atom1Feed):
    """Atom with the blog's last change as the feed's `updated`.

    Django takes the newest entry's date, and the current time when there is none: a deleted
    article would not move it, and an empty feed would have other bytes on every request under
    the same strong ETag."""

    def latest_post_date(self) -> datetime:
        return self.feed["blog_updated"]

    def add_item_elements(self, handler: Any, item: dict[str, Any]) -> None:
        super().add_item_elements(handler, item)
        # RFC 4287 4.1.3: the entry's content as HTML, escaped by the XML writer (type="html").
        if item.get("content_html") is not None:
            handler.addQuickElement("content", item["content_html"], {"type": "html"})


class BlogFeed(Feed):
    feed_type = BlogAtomFeed

    def get_object(self, request: HttpRequest, blog: Blog) -> Blog:
        self.request = request
        return blog

    def title(self, blog: Blog) -> str:
        return xml_text(blog.title)

    def subtitle(self, blog: Blog) -> str:
        return xml_text(blog.description)

    def link(self, blog: Blog) -> str:
        return api_url(self.request, "blog", blog_id=blog.pk)

    def feed_url(self, blog: Blog) -> str:
        # Canonical, whichever prefix the request came in on: the feed's id is this URL.
        return api_url(self.request, "feed", blog_id=blog.pk)

    def feed_guid(self, blog: Blog) -> str:
        return self.feed_url(blog)

    # RFC 4287 4.1.1: a feed whose entries name no author names one itself. The blog's authors
    # are who may write, not a byline, and a change of them moves no revision.
    author_name = title

    def feed_extra_kwargs(self, blog: Blog) -> dict[str, Any]:
        return {"blog_updated": blog.updated_at}

    def items(self, blog: Blog) -> Any:
        # Newest first by id, through the index of live articles (blog, id).
        return Article.objects.live().in_blog(blog.pk).order_by("-id")[:FEED_ENTRIES]

    def item_title(self, article: Article) -> str:
        # Atom's title is text (RFC 4287 3.1.1), escaped by the XML writer; Django's default
        # escapes it once more for RSS readers, which would show "&amp;" here.
        return xml_text(article.title)

    def item_description(self, article: Article) -> str | None:
        if article.content is None:
            return None
        # Bounded like a page's items (PAGE_CONTENT_MAX_CHARS): the link has the whole text.
        text = Truncator(article.content).chars(settings.PAGE_CONTENT_MAX_CHARS)
        # Django writes the summary as type="html" and the content is plain text: escaped, so
        # that a reader shows "<b>" as written instead of rendering it.
        return xml_text(escape(text))

    def item_extra_kwargs(self, article: Article) -> dict[str, Any]:
        # The sanitised HTML (articles.content), left out with the content, and for a content
        # longer than a page carries (PAGE_CONTENT_MAX_CHARS): HTML cannot be cut as text is,
        # and the link has the whole article.
        content = article.content
        html = None
        if content is not None and len(content) <= settings.PAGE_CONTENT_MAX_CHARS:
            html = xml_text(article_content.render_html(content, article.content_format))
        return {"content_html": html}

    def item_link(self, article: Article) -> str:
        return api_url(self.request, "article", blog_id=article.blog_id, article_id=article.pk)

    def item_pubdate(self, article: Article) -> datetime:
        return article.created_at

    def item_updateddate(self, article: Article) -> datetime:
        return article.updated_at


class BlogFeedView(View):
    http_method_names = ["get", "head", "options"]

    def get(self, request: HttpRequest, blog_id: int) -> HttpResponse:
        if settings.MAINTENANCE_MODE:
            return problem_response(
                request,
                status=503,
                detail="The service is in maintenance; retry later.",
                headers={"Retry-After": "60"},
            )
        if preferred(request, _ACCEPTABLE) is None:
            response = problem_response(
                request, status=406, detail=f"The feed is {ATOM_MEDIA_TYPE} only."
            )
            patch_vary_headers(response, ("Accept",))
            return response
        rate = count_read(request)
        if rate is not None and rate.exceeded:
            return problem_response(
                request,
                status=429,
                detail="Over the read rate limit; retry after Retry-After seconds.",
                headers={"Retry-After": str(rate.reset)},
            )
        blog = get_object_or_404(Blog, pk=blog_id)
        validators = feed_validators(blog)
        try:
            response = evaluate(request, validators) or validators.apply(BlogFeed()(request, blog))
        except PreconditionFailed as failed:
            response = problem_response(request, status=412, detail=str(failed.detail))
        patch_vary_headers(response, ("Accept",))
        # The blog's title and its newest articles (a 412 problem stays private: core.edge).
        return share(
            response,
            [
                representations.blog_generation(blog.pk),
                representations.blog_articles_generation(blog.pk),
            ],
        )

    def http_method_not_allowed(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        return problem_response(
            request,
            status=405,
            detail=f"The feed is read-only: {_ALLOWED_METHODS}.",
            headers={"Allow": _ALLOWED_METHODS},
        )
