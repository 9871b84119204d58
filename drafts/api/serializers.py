"""A draft's input and output shapes (docs/rest.md, "Drafts")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from articles.api.inputs import CONTENT_FORMAT_NAMES, ArticleInputSerializer
from articles.api.serializers import TemplatesField
from articles.models import SLUG_MAX_LENGTH, TAG_NAME_MAX_LENGTH
from articles.tags import TAGS_MAX
from blogs.models import TITLE_MAX_LENGTH
from drafts.api import forms
from drafts.models import Draft
from rest.fields import StrictCharField
from rest.links import HalSerializer, Link, LinksField, api_url, link
from rest.paging import page_serializer


@extend_schema_serializer(
    description="The draft's fields; `id`, `publishAt` and any other unknown field are ignored"
    " (scheduling goes through `doc:publish`). A PUT replaces them all: one without `content`,"
    " `tags` or `slug` removes them."
)
class DraftInputSerializer(ArticleInputSerializer):
    """An article's fields and their checks (articles.api.inputs), with a draft's defaults."""

    contentFormat = serializers.ChoiceField(
        choices=CONTENT_FORMAT_NAMES, required=False, default="text"
    )
    tags = serializers.ListField(
        child=StrictCharField(min_length=1, max_length=TAG_NAME_MAX_LENGTH),
        required=False,
        default=list,
        max_length=TAGS_MAX,
    )
    slug = serializers.SlugField(max_length=SLUG_MAX_LENGTH, required=False, allow_blank=True)

    def validate_tags(self, value: list[str]) -> list[str]:
        # One of each, in the order given.
        return list(dict.fromkeys(name.strip() for name in super().validate_tags(value)))


@extend_schema_serializer(
    description='`{}` publishes now; `{"publishAt": "<RFC 3339>"}` schedules the'
    " publication (a time in the future, at most `PUBLISH_HORIZON_DAYS` ahead, with its"
    " offset)."
)
class PublishInputSerializer(serializers.Serializer):
    publishAt = serializers.DateTimeField(required=False, input_formats=["iso-8601"])


def _draft_link(route: str) -> Callable[[HttpRequest, Draft], Link]:
    def build(request: HttpRequest, draft: Draft) -> Link:
        return link(api_url(request, route, blog_id=draft.blog_id, draft_id=draft.pk))

    return build


def _blog(request: HttpRequest, draft: Draft) -> Link:
    return link(api_url(request, "blog", blog_id=draft.blog_id), title=draft.blog.title)


def _article(request: HttpRequest, draft: Draft) -> Link | None:
    if draft.article_id is None:
        return None
    return link(api_url(request, "article", blog_id=draft.blog_id, article_id=draft.article_id))


class DraftSerializer(HalSerializer):
    """A draft (`draft.blog` loaded: its title is in doc:blog)."""

    id = serializers.IntegerField()
    title = serializers.CharField(max_length=TITLE_MAX_LENGTH)
    content = serializers.CharField(required=False, help_text="Left out when the draft has none.")
    contentFormat = serializers.ChoiceField(source="content_format", choices=CONTENT_FORMAT_NAMES)
    tags = serializers.ListField(child=serializers.CharField())
    slug = serializers.CharField(required=False, help_text="Left out when none was given.")
    publishAt = serializers.DateTimeField(
        source="publish_at",
        allow_null=True,
        default_timezone=UTC,
        help_text="When the draft is scheduled to be published; null when it is not.",
    )
    _links = LinksField(
        {
            "self": _draft_link("draft"),
            "doc:blog": _blog,
            "doc:article": _article,
            "doc:publish": _draft_link("draft-publish"),
            "doc:preview": _draft_link("draft-preview"),
        },
        optional=("doc:article",),
        help_text="`doc:article` when the draft edits a published article.",
    )
    _templates = TemplatesField(lambda request, draft, _: forms.draft_templates(request, draft))

    def to_representation(self, instance: Draft) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not data.get("slug"):
            data.pop("slug", None)
        return data


class DraftInPageSerializer(DraftSerializer):
    _templates = None


class PreviewLinkSerializer(serializers.Serializer):
    href = serializers.URLField(help_text="Opens the draft without a token until expiresAt.")
    expiresAt = serializers.DateTimeField(default_timezone=UTC)


class DraftPageSerializer(page_serializer("DraftPage", DraftInPageSerializer, "totalDrafts")):
    """A page of a blog's drafts (`blog` in the context: its create template)."""

    _templates = TemplatesField(
        lambda request, _, context: forms.draft_page_templates(request, context["blog"])
    )
