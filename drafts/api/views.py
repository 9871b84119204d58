"""A blog's drafts over REST, for its authors only, reads included (docs/rest.md, "Drafts").

Every answer is `Cache-Control: private, no-store`: a draft is never kept by a shared cache nor
by the representation cache (no view here calls core.edge.share), and only a preview link opens
one without a token."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from articles.api.lookups import get_article, get_blog_to_write
from articles.api.serializers import ArticleSerializer
from articles.api.views.articles import article_response
from articles.content import render_html
from articles.exceptions import BlogArchived
from blogs.models import Blog
from core.negotiation import is_browser_navigation
from core.paging import Page
from drafts import services
from drafts.api.serializers import (
    DraftInputSerializer,
    DraftPageSerializer,
    DraftSerializer,
    PreviewLinkSerializer,
    PublishInputSerializer,
)
from drafts.exceptions import DraftGone
from drafts.models import Draft
from rest.conditional import Validators, evaluate, expected_version, strong_etag
from rest.links import CANONICAL_NAMESPACE, api_url, origin
from rest.openapi import (
    ANY_OPERATION,
    CONDITIONAL_WRITE,
    PAGE_PARAMETERS,
    problems,
    token_operation,
)
from rest.paging import page_body, page_params
from rest.views import ApiView, TokenOnlyView, valid_body

TAG = "drafts"
PRIVATE = "private, no-store"
_operation = partial(token_operation, TAG)


def draft_validators(draft: Draft) -> Validators:
    return Validators(strong_etag("draft", draft.pk, draft.version), draft.updated_at)


class _Private:
    """Every answer, errors included, carries these headers."""

    private_headers = {"Cache-Control": PRIVATE}

    def finalize_response(
        self, request: Request, response: HttpResponse, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        response = super().finalize_response(request, response, *args, **kwargs)
        for name, value in self.private_headers.items():
            response[name] = value
        return response


class DraftApiView(_Private, TokenOnlyView):
    """The blog's authors only: every method needs the token (401), then authorship (403)."""

    def blog(self, request: Request, blog_id: int) -> Blog:
        blog = get_blog_to_write(request, blog_id)
        if not blog.is_author(request.user):
            raise exceptions.PermissionDenied("Only the blog's authors see and write its drafts.")
        return blog

    def draft(self, request: Request, blog_id: int, draft_id: int) -> Draft:
        """The open draft: 404 when it never was the blog's, 410 once published or deleted."""
        blog = self.blog(request, blog_id)
        draft = get_object_or_404(
            Draft.objects.select_related("article"), pk=draft_id, blog_id=blog.pk
        )
        if draft.is_gone:
            raise DraftGone
        draft.blog = blog
        return draft

    def draft_to_write(
        self, request: Request, blog_id: int, draft_id: int
    ) -> tuple[Draft, int | None]:
        """The open draft once the request's preconditions hold (412), and the version a write
        must still find: the one they were checked on, unless `If-Match: *` or none was sent."""
        draft = self.draft(request, blog_id, draft_id)
        evaluate(request, draft_validators(draft))
        return draft, expected_version(request, draft.version)


def _input(request: Request) -> dict[str, Any]:
    data = valid_body(DraftInputSerializer, request)
    return {
        "title": data["title"],
        "content": data.get("content"),
        "content_format": data.get("contentFormat", "text"),
        "tags": data.get("tags", []),
        "slug": data.get("slug", ""),
    }


def draft_response(request: Request, draft: Draft, *, status: int = 200) -> Response:
    data = DraftSerializer(draft, context={"request": request}).data
    return draft_validators(draft).apply(Response(data, status=status))


def _created(request: Request, draft: Draft) -> Response:
    response = draft_response(request, draft, status=201)
    response["Location"] = api_url(request, "draft", blog_id=draft.blog_id, draft_id=draft.pk)
    return response


class DraftListView(DraftApiView):
    @_operation(
        "drafts_list",
        "A page of a blog's drafts",
        "The blog's open drafts (neither published nor deleted), oldest first, with"
        " `totalDrafts`. Only the blog's authors see them: the token is needed for this read.",
        responses={200: DraftPageSerializer},
        parameters=PAGE_PARAMETERS,
        write=False,
    )
    def get(self, request: Request, blog_id: int) -> Response:
        page_index, page_size = page_params(request)
        blog = self.blog(request, blog_id)
        drafts = Draft.objects.open().filter(blog_id=blog.pk).select_related("article")
        total = drafts.count()
        start = (page_index - 1) * page_size
        items = list(drafts.order_by("id")[start : start + page_size])
        for draft in items:
            draft.blog = blog
        page = Page(items=items, total=total, page_index=page_index, page_size=page_size)
        url = api_url(request, "drafts", blog_id=blog.pk)
        return Response(
            page_body(request, DraftPageSerializer, page, collection_url=url, blog=blog)
        )

    @_operation(
        "draft_create",
        "Write a new draft",
        "A draft of a new article: 201 with the draft, its `Location` and `ETag`. 409 when the"
        " blog is archived.",
        request=DraftInputSerializer,
        responses={201: DraftSerializer},
        errors=(409,),
    )
    def post(self, request: Request, blog_id: int) -> Response:
        blog = self.blog(request, blog_id)
        if blog.archived:
            raise BlogArchived
        draft = services.draft_create(blog=blog, actor=request.user, **_input(request))
        return _created(request, draft)


class ArticleDraftView(DraftApiView):
    @_operation(
        "draft_from_article",
        "Start a draft from a published article",
        "A draft with the article's title, content, format, tags and slug, remembering the"
        " article's ETag: publishing it later replaces the article, or is refused (409) when"
        " the article changed meanwhile. 201 with the draft and its `Location`.",
        responses={201: DraftSerializer},
        errors=(409, 410),
    )
    def post(self, request: Request, blog_id: int, article_id: int) -> Response:
        blog = self.blog(request, blog_id)
        article = get_article(blog, article_id)
        draft = services.draft_from_article(article=article, actor=request.user)
        return _created(request, draft)


class DraftView(DraftApiView):
    @_operation(
        "draft_read",
        "A draft",
        "The draft, with `ETag` and `Last-Modified` (304 for a current copy). 410 once it was"
        " published or deleted.",
        responses={200: DraftSerializer, 304: OpenApiResponse(None, "Not modified.")},
        errors=(410,),
        write=False,
    )
    def get(self, request: Request, blog_id: int, draft_id: int) -> HttpResponse:
        draft = self.draft(request, blog_id, draft_id)
        return evaluate(request, draft_validators(draft)) or draft_response(request, draft)

    @_operation(
        "draft_replace",
        "Replace a draft",
        "Replaces the draft's fields as a whole (its schedule stays). `If-Match` as for an"
        " article (412 when the draft changed meanwhile).",
        request=DraftInputSerializer,
        responses={200: DraftSerializer},
        parameters=CONDITIONAL_WRITE,
        errors=(409, 410, 412),
    )
    def put(self, request: Request, blog_id: int, draft_id: int) -> Response:
        draft, expected = self.draft_to_write(request, blog_id, draft_id)
        updated = services.draft_replace(draft=draft, expected_version=expected, **_input(request))
        updated.blog = draft.blog
        return draft_response(request, updated)

    @_operation(
        "draft_delete",
        "Delete a draft",
        "The draft answers 410 from now on. `If-Match` as for a PUT. 204; 409 when the blog is"
        " archived.",
        responses={204: OpenApiResponse(None, "Deleted.")},
        parameters=CONDITIONAL_WRITE,
        errors=(409, 410, 412),
    )
    def delete(self, request: Request, blog_id: int, draft_id: int) -> Response:
        draft, expected = self.draft_to_write(request, blog_id, draft_id)
        services.draft_delete(draft=draft, expected_version=expected)
        return Response(status=204)


class PublishView(DraftApiView):
    @_operation(
        "draft_publish",
        "Publish a draft now, or schedule it",
        "`{}` publishes now: a new article answers 201 with the article and its `Location`; a"
        " draft of an article answers 200 with the replaced article (its former state kept as"
        " a revision), or 409 naming both versions when the article changed since the draft"
        " started from it (409 also when the blog is archived). The draft answers 410"
        ' afterwards. `{"publishAt": "..."}`'
        " schedules it: 202 with the draft; 422 for a time that is not in the future, more than"
        " `PUBLISH_HORIZON_DAYS` (366) days ahead, or not RFC 3339. `If-Match` with the"
        " draft's ETag makes either conditional (412).",
        request=PublishInputSerializer,
        responses={200: ArticleSerializer, 201: ArticleSerializer, 202: DraftSerializer},
        parameters=CONDITIONAL_WRITE,
        errors=(409, 410, 412),
    )
    def post(self, request: Request, blog_id: int, draft_id: int) -> Response:
        draft, expected = self.draft_to_write(request, blog_id, draft_id)
        publish_at = valid_body(PublishInputSerializer, request).get("publishAt")
        if publish_at is not None:
            scheduled = services.draft_schedule(draft, publish_at, expected_version=expected)
            scheduled.blog = draft.blog
            return draft_response(request, scheduled, status=202)
        article, created = services.draft_publish(draft, expected=expected, actor=request.user)
        response = article_response(request, article, status=201 if created else 200)
        if created:
            response["Location"] = api_url(
                request, "article", blog_id=article.blog_id, article_id=article.pk
            )
        return response

    @_operation(
        "draft_unschedule",
        "Unschedule a draft",
        "The draft is no longer scheduled (`publishAt` null): 204; 409 when the blog is archived.",
        responses={204: OpenApiResponse(None, "Unscheduled.")},
        parameters=CONDITIONAL_WRITE,
        errors=(409, 410, 412),
    )
    def delete(self, request: Request, blog_id: int, draft_id: int) -> Response:
        draft, expected = self.draft_to_write(request, blog_id, draft_id)
        services.draft_unschedule(draft, expected_version=expected)
        return Response(status=204)


class PreviewLinkView(DraftApiView):
    @_operation(
        "draft_preview_link",
        "Make a preview link",
        '201 with `{"href", "expiresAt"}`: a signed link that shows the draft as it is then,'
        " without a token, for PREVIEW_LINK_HOURS (48). No table: the link cannot be revoked"
        " but by deleting or publishing the draft.",
        responses={201: PreviewLinkSerializer},
        errors=(410,),
    )
    def post(self, request: Request, blog_id: int, draft_id: int) -> Response:
        draft = self.draft(request, blog_id, draft_id)
        token, expires_at = services.preview_token(draft)
        href = origin(request) + reverse(f"{CANONICAL_NAMESPACE}:preview", kwargs={"token": token})
        data = PreviewLinkSerializer({"href": href, "expiresAt": expires_at}).data
        return Response(data, status=201)


class PreviewView(_Private, ApiView):
    """A preview link: the draft without a token (HAL, or a plain page for a browser)."""

    permission_classes = [AllowAny]
    private_headers = {"Cache-Control": PRIVATE, "X-Robots-Tag": "noindex"}

    @extend_schema(
        operation_id="draft_preview",
        summary="A draft through its preview link",
        description="The draft as it is now, without a token: HAL, or a plain HTML page for a"
        " browser. `Cache-Control: private, no-store`, `X-Robots-Tag: noindex`. 410 once the"
        " link expired; 404 for a tampered link or a draft published or deleted since.",
        tags=[TAG],
        auth=[],
        responses={200: DraftSerializer, **problems(*ANY_OPERATION, 404, 410)},
    )
    def get(self, request: Request, token: str) -> HttpResponse:
        draft = services.draft_for_preview(token)
        if is_browser_navigation(request):
            # The content rendered and sanitised as the article's contentHtml will be
            # (articles.content); the template escapes the rest.
            content = render_html(draft.content, draft.content_format)
            page = render_to_string("drafts/preview.html", {"draft": draft, "content": content})
            return HttpResponse(page, content_type="text/html; charset=utf-8")
        data = DraftSerializer(draft, context={"request": request}).data
        data.pop("_templates", None)
        return Response(data)
