"""A blog's tags: the page of them, and one tag (issue 29). Read-only: tags come with articles."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from articles import tags
from articles.api.lookups import get_blog
from articles.api.tag_serializers import TagPageSerializer, TagSerializer
from blogs.models import Blog
from core import representations
from rest.conditional import Validators, conditional_read, strong_etag
from rest.links import api_url
from rest.openapi import PAGE_PARAMETERS, read
from rest.paging import page_body, page_params
from rest.views import ApiView


def _generations(blog: Blog) -> list[str]:
    # Tags and their counts change only with the blog's articles (every write bumps them).
    return [representations.blog_articles_generation(blog.pk)]


def _validators(blog: Blog, *parts: object) -> Validators:
    return Validators(strong_etag("tags", blog.pk, blog.revision, *parts), blog.updated_at)


class TagListView(ApiView):
    @read(
        "tags_list",
        "A page of a blog's tags",
        TagPageSerializer,
        tag="articles",
        description="The blog's tags by slug, each with its number of live articles and a"
        " `doc:articles` link to the blog's articles with that tag (`?tag={slug}`).",
        errors=(404,),
        parameters=PAGE_PARAMETERS,
    )
    def get(self, request: Request, blog_id: int) -> HttpResponse:
        page_index, page_size = page_params(request)
        blog = get_blog(blog_id)

        def body() -> dict[str, Any]:
            page = tags.tag_page(blog_id=blog.pk, page_index=page_index, page_size=page_size)
            return page_body(
                request,
                TagPageSerializer,
                page,
                collection_url=api_url(request, "tags", blog_id=blog.pk),
            )

        validators = _validators(blog, page_index, page_size)
        return conditional_read(request, validators, _generations(blog), body)


class TagView(ApiView):
    @read(
        "tag_read",
        "A tag",
        TagSerializer,
        tag="articles",
        description="One of the blog's tags, by its slug: its name, its number of live articles"
        " and a link to them.",
        errors=(404,),
    )
    def get(self, request: Request, blog_id: int, tag_slug: str) -> HttpResponse:
        blog = get_blog(blog_id)

        def body() -> dict[str, Any]:
            tag = tags.tag_of(blog_id=blog.pk, slug=tag_slug)
            if tag is None:
                raise NotFound("The blog has no such tag.")
            return TagSerializer(tag, context={"request": request}).data

        return conditional_read(request, _validators(blog, tag_slug), _generations(blog), body)
