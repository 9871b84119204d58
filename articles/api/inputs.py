"""What clients send to the article resources: POST and PUT bodies of articles and comments
(the output shapes: articles.api.serializers)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from articles import tags as article_tags
from articles.models import (
    COMMENT_MAX_LENGTH,
    CONTENT_FORMATS,
    SLUG_MAX_LENGTH,
    TAG_NAME_MAX_LENGTH,
)
from blogs.models import TITLE_MAX_LENGTH
from rest.fields import StrictCharField

CONTENT_FORMAT_NAMES = [name for name, _ in CONTENT_FORMATS]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise serializers.ValidationError("Must not be blank.")
    return value


@extend_schema_serializer(
    description="The article's fields. `id` and any other unknown field are ignored (the URL"
    " names the article); a PUT without `content` removes the content."
)
class ArticleInputSerializer(serializers.Serializer):
    """POST and PUT bodies. `id` and any other unknown field are ignored (the URL names it)."""

    title = StrictCharField(max_length=TITLE_MAX_LENGTH, trim_whitespace=False)
    content = StrictCharField(
        required=False, allow_null=True, allow_blank=True, trim_whitespace=False
    )
    contentFormat = serializers.ChoiceField(
        choices=CONTENT_FORMAT_NAMES,
        required=False,
        help_text="How `content` is written; `text` for a new article without it, kept by a PUT"
        " without it.",
    )
    tags = serializers.ListField(
        child=StrictCharField(min_length=1, max_length=TAG_NAME_MAX_LENGTH),
        max_length=article_tags.TAGS_MAX,
        required=False,
        help_text=f"Tag names, each 1 to {TAG_NAME_MAX_LENGTH} characters, at most"
        f" {article_tags.TAGS_MAX}; a PUT without `tags` keeps the article's.",
    )
    slug = StrictCharField(
        required=False,
        max_length=SLUG_MAX_LENGTH,
        help_text="The article's readable name in its blog (lower-case letters, digits, `-`,"
        " `_`); made from the title when a POST has none, kept by a PUT without it.",
    )

    validate_title = staticmethod(_not_blank)

    def validate_tags(self, value: list[str]) -> list[str]:
        if any(not name.strip() for name in value):
            raise serializers.ValidationError("A tag name must not be blank.")
        if any(article_tags.has_control_characters(name) for name in value):
            raise serializers.ValidationError("A tag name must not hold control characters.")
        return value


@extend_schema_serializer(description="The comment's text; its author is the token's user.")
class CommentInputSerializer(serializers.Serializer):
    text = StrictCharField(max_length=COMMENT_MAX_LENGTH, trim_whitespace=False)
    validate_text = staticmethod(_not_blank)
