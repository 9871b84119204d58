"""HAL-FORMS `_templates`: the writes an article page and an article offer, with the constraints
the API checks. Shown whatever the token; left out when nobody may use them (an archived blog, a
locked article's replace and delete): docs/decisions/hal-forms.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from articles.models import COMMENT_MAX_LENGTH, Article
from blogs.models import TITLE_MAX_LENGTH, Blog
from rest.links import HalSerializer, api_url

JSON = "application/json"
# At least one character that is not white space, whether a client matches the pattern against
# the whole value (HTML's `pattern`) or searches it (a bare regular expression): the API refuses
# a blank title or comment (422).
NOT_BLANK = r"[\s\S]*\S[\s\S]*"


@dataclass(frozen=True)
class Property:
    """One HAL-FORMS property: a field of the request body and its constraints."""

    name: str
    prompt: str
    type: str = "text"
    required: bool = False
    min_length: int | None = None
    max_length: int | None = None
    regex: str | None = None
    value: str | None = None


class HalFormsPropertySerializer(HalSerializer):
    name = serializers.CharField()
    prompt = serializers.CharField(required=False)
    type = serializers.ChoiceField(choices=["text", "textarea"], required=False)
    required = serializers.BooleanField()
    minLength = serializers.IntegerField(source="min_length", min_value=0, required=False)
    maxLength = serializers.IntegerField(source="max_length", min_value=1, required=False)
    regex = serializers.CharField(required=False)
    value = serializers.CharField(required=False, help_text="The current value (a replace).")


@extend_schema_serializer(
    description="A HAL-FORMS template: send `method` to `target` with a `contentType` body made"
    " of `properties`."
)
class HalFormsTemplateSerializer(serializers.Serializer):
    title = serializers.CharField(required=False)
    method = serializers.ChoiceField(choices=["POST", "PUT", "DELETE"])
    target = serializers.URLField()
    contentType = serializers.ChoiceField(choices=[JSON])
    properties = HalFormsPropertySerializer(many=True)


def template(
    *, title: str, method: str, target: str, properties: tuple[Property, ...] = ()
) -> dict[str, Any]:
    """A template (HalFormsTemplateSerializer writes it). `target` is always given (absolute,
    like every href of the API), so a client need not know that it would default to the
    document's own URL."""
    return dict(title=title, method=method, target=target, contentType=JSON, properties=properties)


def title_property(value: str | None = None) -> Property:
    return Property(
        name="title",
        prompt="Title",
        required=True,
        min_length=1,
        max_length=TITLE_MAX_LENGTH,
        regex=NOT_BLANK,
        value=value,
    )


def content_property(value: str | None = None) -> Property:
    # Optional: a PUT without it removes the content, so the replace template carries it.
    return Property(name="content", prompt="Content", type="textarea", value=value)


_COMMENT_TEXT = Property(
    name="text",
    prompt="Comment",
    type="textarea",
    required=True,
    min_length=1,
    max_length=COMMENT_MAX_LENGTH,
    regex=NOT_BLANK,
)


def article_page_templates(request: HttpRequest, blog: Blog) -> dict[str, Any]:
    """An article page's templates: `default` writes a new article into the blog (POST)."""
    if blog.archived:
        return {}
    return {
        "default": template(
            title="Write a new article",
            method="POST",
            target=api_url(request, "articles", blog_id=blog.pk),
            properties=(title_property(), content_property()),
        )
    }


def article_templates(request: HttpRequest, article: Article) -> dict[str, Any]:
    """An article's templates (`article.blog` loaded): `default` replaces it (PUT, the current
    title and content as values), `delete` deletes it, `comment` comments on it (POST to its
    comments)."""
    if article.blog.archived or article.is_deleted:
        return {}
    self_url = api_url(request, "article", blog_id=article.blog_id, article_id=article.pk)
    templates: dict[str, Any] = {}
    if not article.locked:
        templates["default"] = template(
            title="Replace this article",
            method="PUT",
            target=self_url,
            properties=(title_property(article.title), content_property(article.content)),
        )
        templates["delete"] = template(
            title="Delete this article", method="DELETE", target=self_url
        )
    templates["comment"] = template(
        title="Comment on this article",
        method="POST",
        target=api_url(request, "comments", blog_id=article.blog_id, article_id=article.pk),
        properties=(_COMMENT_TEXT,),
    )
    return templates
