"""The output shapes of a blog's tags (docs/rest.md, "Slugs and tags")."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from rest_framework import serializers

from articles.models import TAG_NAME_MAX_LENGTH, Tag
from rest.links import HalSerializer, Link, LinksField, api_url, link, page_href
from rest.paging import page_serializer


def _tag_self(request: HttpRequest, tag: Tag) -> Link:
    # A slug is URL-safe ([a-z0-9_-]); api_url builds routes of integer arguments only.
    return link(f"{api_url(request, 'tags', blog_id=tag.blog_id)}/{tag.slug}")


def _tag_articles(request: HttpRequest, tag: Tag) -> Link:
    # The blog's articles with this tag: a page link that keeps the tag (rest.links.page_href).
    href = page_href(
        api_url(request, "articles", blog_id=tag.blog_id),
        page_index=1,
        page_size=settings.PAGE_SIZE_DEFAULT,
        search={"tag": tag.slug},
    )
    return link(href, title=tag.name)


class TagSerializer(HalSerializer):
    """A tag of a blog: its name, its slug (what `?tag=` takes), its number of live articles."""

    name = serializers.CharField(max_length=TAG_NAME_MAX_LENGTH)
    slug = serializers.CharField()
    articleCount = serializers.IntegerField(
        source="article_count", min_value=0, help_text="The live articles with this tag."
    )
    _links = LinksField({"self": _tag_self, "doc:articles": _tag_articles})


TagPageSerializer = page_serializer(
    "TagPage", TagSerializer, "totalTags", lambda member: member["name"]
)
