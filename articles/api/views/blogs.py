"""The API root, the blog list and a blog: read-only (editors manage blogs in the admin)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.response import Response

from articles import selectors
from articles.api.lookups import get_blog
from articles.api.serializers import ApiRootSerializer, BlogPageSerializer, BlogSerializer
from blogs.models import Blog
from core import representations
from core.edge import share
from rest.conditional import Validators, conditional_read, strong_etag
from rest.links import api_url
from rest.openapi import PAGE_PARAMETERS, read
from rest.paging import page_body, page_params
from rest.views import ApiView

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ApiRootView(ApiView):
    @read(
        "root",
        "The API root",
        ApiRootSerializer,
        tag="root",
        description="Where a client starts: follow `doc:blogs` to the blogs, expand the"
        " templated `doc:blog` link with a blog's id, or `doc:search` with `q` to search the"
        " articles of every blog. The `curies` link to the documentation of"
        " each `doc:` relation.",
        conditional=False,
    )
    def get(self, request: Request) -> Response:
        return share(Response(ApiRootSerializer(request, context={"request": request}).data), [])


def blog_list_validators(kind: str, state: selectors.BlogListState, *parts: object) -> Validators:
    """Validators of a list over every blog, from their aggregate state (selectors)."""
    return Validators(
        strong_etag(kind, state.count, state.id_sum, state.revisions, *parts),
        state.last_modified or EPOCH,
    )


def blog_validators(blog: Blog) -> Validators:
    return Validators(strong_etag("blog", blog.pk, blog.revision), blog.updated_at)


class BlogListView(ApiView):
    @read(
        "blogs_list",
        "A page of blogs",
        BlogPageSerializer,
        tag="blogs",
        description="Every blog, a page at a time, oldest first. A `pageIndex` past the last"
        " page is an empty page.",
        parameters=PAGE_PARAMETERS,
    )
    def get(self, request: Request) -> HttpResponse:
        page_index, page_size = page_params(request)
        state = selectors.blog_list_state()

        def body() -> dict[str, Any]:
            page = selectors.blog_page(
                total=state.count, page_index=page_index, page_size=page_size
            )
            return page_body(
                request, BlogPageSerializer, page, collection_url=api_url(request, "blogs")
            )

        validators = blog_list_validators("blogs", state, page_index, page_size)
        return conditional_read(request, validators, [representations.blogs_generation()], body)


class BlogView(ApiView):
    @read(
        "blog_read",
        "A blog",
        BlogSerializer,
        tag="blogs",
        description="The blog, with a templated `doc:articles` link to its pages of articles.",
        errors=(404,),
    )
    def get(self, request: Request, blog_id: int) -> HttpResponse:
        blog = get_blog(blog_id)
        return conditional_read(
            request,
            blog_validators(blog),
            [representations.blog_generation(blog.pk)],
            lambda: BlogSerializer(blog, context={"request": request}).data,
        )
