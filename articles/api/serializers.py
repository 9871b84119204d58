"""Input and output shapes of the HAL resources; input and output are separate serializers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework import serializers

from articles.api import forms
from articles.models import COMMENT_MAX_LENGTH, Article, Comment
from blogs.models import TITLE_MAX_LENGTH, Blog
from rest.conditional import wants_forms
from rest.links import (
    Link,
    LinksField,
    api_url,
    articles_template,
    link,
    page_template,
    relation_links,
    templated_link,
)

# --- input ----------------------------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else: DRF's CharField would turn 5 or true into "5", "True"."""

    default_error_messages = {
        "not_a_string": "Must be a string.",
        "unencodable": "Must be valid Unicode text (no lone surrogates).",
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string")
        try:
            # A lone surrogate from a JSON \ud800 escape cannot be stored as UTF-8.
            data.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("unencodable")
        return super().to_internal_value(data)


class ArticleInputSerializer(serializers.Serializer):
    """POST and PUT bodies. `id` and any other unknown field are ignored (the URL names it)."""

    title = StrictCharField(max_length=TITLE_MAX_LENGTH, trim_whitespace=False)
    content = StrictCharField(
        required=False, allow_null=True, allow_blank=True, trim_whitespace=False
    )

    def validate_title(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Must not be blank.")
        return value


class CommentInputSerializer(serializers.Serializer):
    text = StrictCharField(max_length=COMMENT_MAX_LENGTH, trim_whitespace=False)

    def validate_text(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Must not be blank.")
        return value


# --- output ---------------------------------------------------------------------------------------


def _blog_self(request: HttpRequest, blog: Blog) -> Link:
    return link(api_url(request, "blog", blog_id=blog.pk))


def _blog_articles(request: HttpRequest, blog: Blog) -> Link:
    return templated_link(articles_template(api_url(request, "articles", blog_id=blog.pk)))


def _blog_feed(request: HttpRequest, blog: Blog) -> Link:
    # RFC 8288 `alternate` with the media type (as HTML's <link rel="alternate">): the same
    # blog's articles as an Atom feed, for feed readers.
    return {
        **link(api_url(request, "feed", blog_id=blog.pk), title=f"{blog.title} (Atom feed)"),
        "type": "application/atom+xml",
    }


def _blog_webhooks(request: HttpRequest, blog: Blog) -> Link:
    return templated_link(page_template(api_url(request, "webhooks", blog_id=blog.pk)))


def _article_self(request: HttpRequest, article: Article) -> Link:
    return link(api_url(request, "article", blog_id=article.blog_id, article_id=article.pk))


def _article_blog(request: HttpRequest, article: Article) -> Link:
    return link(api_url(request, "blog", blog_id=article.blog_id), title=article.blog.title)


def _article_comments(request: HttpRequest, article: Article) -> Link:
    url = api_url(request, "comments", blog_id=article.blog_id, article_id=article.pk)
    return templated_link(page_template(url))


def _article_revisions(request: HttpRequest, article: Article) -> Link:
    url = api_url(request, "revisions", blog_id=article.blog_id, article_id=article.pk)
    return templated_link(page_template(url))


def _comment_self(request: HttpRequest, comment: Comment) -> Link:
    return link(
        api_url(
            request,
            "comment",
            blog_id=comment.article.blog_id,
            article_id=comment.article_id,
            comment_id=comment.pk,
        )
    )


def _comment_article(request: HttpRequest, comment: Comment) -> Link:
    return link(
        api_url(request, "article", blog_id=comment.article.blog_id, article_id=comment.article_id)
    )


class BlogSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    _links = LinksField(
        {
            "self": _blog_self,
            "doc:articles": _blog_articles,
            "alternate": _blog_feed,
            "doc:webhooks": _blog_webhooks,
        }
    )


ARTICLE_RELATIONS = {
    "self": _article_self,
    "doc:blog": _article_blog,
    "doc:comments": _article_comments,
    "doc:revisions": _article_revisions,
}


def article_representation(request: HttpRequest, article: Article) -> dict[str, Any]:
    """An article as the contract shows it (`article.blog` must be loaded: its title is in the
    doc:blog link)."""
    data: dict[str, Any] = {"id": article.pk, "title": article.title}
    if article.content is not None:
        # The contract: content is left out, not null, when the article has none.
        data["content"] = article.content
    data["_links"] = relation_links(request, article, ARTICLE_RELATIONS)
    return data


def article_document(request: HttpRequest, article: Article) -> dict[str, Any]:
    """An article answered as the resource itself (a read, a create, a replace): for a HAL-FORMS
    client also the `_templates` of what can be done with it. A page embeds articles without
    them: HAL-FORMS reads templates at the top of a document."""
    data = article_representation(request, article)
    if wants_forms(request) and (templates := forms.article_templates(request, article)):
        data["_templates"] = templates
    return data


def article_page_item(request: HttpRequest, article: Article) -> dict[str, Any]:
    """An article as a page embeds it: content longer than PAGE_CONTENT_MAX_CHARS is left out,
    with `"contentOmitted": true`, and the item's self link leads to all of it. Without the
    bound, a public page of 100 articles of 1 MiB was a 100 MB answer."""
    data = article_representation(request, article)
    if article.content is not None and len(article.content) > settings.PAGE_CONTENT_MAX_CHARS:
        del data["content"]
        data = {"id": data["id"], "title": data["title"], "contentOmitted": True, **data}
    return data


class CommentSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    author = serializers.CharField(source="author.get_username", read_only=True)
    text = serializers.CharField(read_only=True)
    _links = LinksField({"self": _comment_self, "doc:article": _comment_article})


def deleted_article_links(request: HttpRequest, article: Article) -> dict[str, Any]:
    """What the specification shows for a deleted article: curies and doc:blog with its title."""
    links = LinksField({"doc:blog": _article_blog})
    links.bind("_links", serializers.Serializer(context={"request": request}))
    return {"_links": links.to_representation(article)}
