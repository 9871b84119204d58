"""Output shapes of the HAL resources (what clients send: articles.api.inputs)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from operator import attrgetter
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from articles import content as article_content
from articles import tags as article_tags
from articles.api import forms
from articles.models import Article
from blogs.models import TITLE_MAX_LENGTH, Blog
from rest.conditional import wants_forms
from rest.links import (
    HalSerializer,
    Link,
    LinksField,
    api_url,
    articles_template,
    get_request,
    link,
    page_template,
    templated_link,
)
from rest.paging import page_serializer

# A comment has no title: its `item` link is titled with the author and the text's first words.
COMMENT_TITLE_CHARS = 40


def comment_title(member: dict[str, Any]) -> str:
    """`alice: The first forty characters of the text…`, whitespace runs made one space, so
    that a list of comment links tells them apart without fetching each."""
    text = " ".join(member["text"].split())
    if len(text) > COMMENT_TITLE_CHARS:
        text = text[:COMMENT_TITLE_CHARS].rstrip() + "\u2026"
    return f"{member['author']}: {text}"


def _to(
    name: str, expand: Callable[[str], str] | None = None, **arguments: str
) -> Callable[[HttpRequest, Any], Link]:
    """A relation's link to route `name`, each URL argument read from the instance by its
    attribute path (as a field's `source`); templated by `expand` when given."""

    def relation(request: HttpRequest, instance: Any) -> Link:
        kwargs = {key: attrgetter(path)(instance) for key, path in arguments.items()}
        url = api_url(request, name, **kwargs)
        return link(url) if expand is None else templated_link(expand(url))

    return relation


def _blog_feed(request: HttpRequest, blog: Blog) -> Link:
    # RFC 8288 `alternate` with the media type (as HTML's <link rel="alternate">): the same
    # blog's articles as an Atom feed, for feed readers.
    return {
        **link(api_url(request, "feed", blog_id=blog.pk), title=f"{blog.title} (Atom feed)"),
        "type": "application/atom+xml",
    }


def _article_blog(request: HttpRequest, article: Article) -> Link:
    return link(api_url(request, "blog", blog_id=article.blog_id), title=article.blog.title)


class RenderedContentField(serializers.CharField):
    """`contentHtml` or `excerpt`: made from the article's `content` in its `content_format`
    (articles.content), and left out when the article has no content, as `content` is. Built
    once per representation: the representation cache keeps the result, so a read renders only
    on a miss."""

    def __init__(self, render: Callable[[str, str], str], **kwargs: Any) -> None:
        self.render = render
        kwargs.update(source="*", required=False)
        super().__init__(**kwargs)

    def get_attribute(self, instance: Any) -> str | None:
        if instance.content is None:
            return None
        return self.render(instance.content, instance.content_format)


CONTENT_HTML_HELP = (
    "The content as HTML, sanitised against the documented allow-list (docs/decisions/"
    "publishing.md): Markdown rendered as CommonMark, plain text escaped into paragraphs. Safe to"
    " insert into a page as it is. Left out when the article has no content."
)
EXCERPT_HELP = (
    f"The content's first words as plain text (at most {article_content.EXCERPT_LENGTH}"
    " characters and an ellipsis, no markup, entities decoded; escape it to show it in HTML)."
    " Left out when the article has no content."
)


class TemplatesField(serializers.DictField):
    """HAL-FORMS `_templates` (articles.api.forms): only for a client that asked for
    application/prs.hal-forms+json, and left out when no write is open. `build(request,
    instance, context)` makes them."""

    def __init__(self, build: Callable[..., dict[str, Any]], **kwargs: Any) -> None:
        self.build = build
        super().__init__(
            child=forms.HalFormsTemplateSerializer(),
            source="*",
            required=False,
            label="_templates",
            help_text="Only with application/prs.hal-forms+json: the writes the resource"
            " offers, by name (`default` first). Left out when none is open (an archived blog).",
            **kwargs,
        )

    def get_attribute(self, instance: Any) -> dict[str, Any] | None:
        request = get_request(self)
        return (wants_forms(request) and self.build(request, instance, self.context)) or None


# Output serializers: no field is read_only, so that `required` says which ones the schema
# promises (HalSerializer leaves a None out).


class ApiRootSerializer(HalSerializer):
    """Its instance is the request."""

    _links = LinksField(
        {
            "self": _to("root"),
            "doc:blogs": _to("blogs", page_template),
            "doc:blog": lambda request, _: templated_link(api_url(request, "blogs") + "/{id}"),
            "doc:search": _to("search", articles_template),
        }
    )


class BlogSerializer(HalSerializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    description = serializers.CharField()
    _links = LinksField(
        {
            "self": _to("blog", blog_id="pk"),
            "doc:articles": _to("articles", articles_template, blog_id="pk"),
            "alternate": _blog_feed,
            "doc:webhooks": _to("webhooks", page_template, blog_id="pk"),
            "doc:drafts": _to("drafts", page_template, blog_id="pk"),
            "doc:tags": _to("tags", page_template, blog_id="pk"),
        },
        help_text="`alternate` is the blog's Atom feed (`type` says so); `doc:webhooks` its"
        " webhooks and `doc:drafts` its drafts, for its authors (with their token).",
    )


class ArticleSerializer(HalSerializer):
    """An article as the contract shows it (`article.blog` loaded: its title is in the doc:blog
    link); answered as the resource itself, with `_templates` for a HAL-FORMS client."""

    id = serializers.IntegerField()
    title = serializers.CharField(max_length=TITLE_MAX_LENGTH)
    content = serializers.CharField(required=False, help_text="Left out when the article has none.")
    contentHtml = RenderedContentField(article_content.render_html, help_text=CONTENT_HTML_HELP)
    excerpt = RenderedContentField(article_content.excerpt, help_text=EXCERPT_HELP)
    slug = serializers.CharField(
        required=False,
        help_text="The article's readable name, unique in its blog (`by-slug` leads to it).",
    )
    publishedAt = serializers.DateTimeField(
        source="published_at", required=False, default_timezone=UTC, help_text="When published."
    )
    tags = serializers.SerializerMethodField(help_text="The article's tag names.")
    contentFormat = serializers.CharField(
        source="content_format", help_text="How `content` is written: `text` or `markdown`."
    )
    _links = LinksField(
        {
            "self": _to("article", blog_id="blog_id", article_id="pk"),
            "doc:blog": _article_blog,
            "doc:comments": _to("comments", page_template, blog_id="blog_id", article_id="pk"),
            "doc:revisions": _to("revisions", page_template, blog_id="blog_id", article_id="pk"),
        }
    )
    _templates = TemplatesField(
        lambda request, article, _: forms.article_templates(request, article)
    )

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_tags(self, article: Article) -> list[str]:
        return article_tags.names_of(article)


def _render_in_page(content: str, content_format: str) -> str | None:
    # Not rendered at all when the page leaves the content out.
    if len(content) > settings.PAGE_CONTENT_MAX_CHARS:
        return None
    return article_content.render_html(content, content_format)


class ArticleInPageSerializer(ArticleSerializer):
    """An article as a page embeds it: content longer than PAGE_CONTENT_MAX_CHARS is left out,
    with its `contentHtml` (the excerpt stays), with `"contentOmitted": true`, and the item's
    self link leads to all of it. Without the bound, a public page of 100 articles of 1 MiB was
    a 100 MB answer. No `_templates`: HAL-FORMS reads templates at the top of a document."""

    content = serializers.CharField(
        required=False,
        help_text="Left out when the article has none, or when it is longer than"
        f" {settings.PAGE_CONTENT_MAX_CHARS} characters (PAGE_CONTENT_MAX_CHARS).",
    )
    contentHtml = RenderedContentField(
        _render_in_page,
        help_text=f"{CONTENT_HTML_HELP} Left out with `content` when that is too long for a page.",
    )
    contentOmitted = serializers.ChoiceField(
        choices=[True],
        required=False,
        help_text="Present when the content was left out for its length: follow `self`"
        " for the whole article.",
    )
    _templates = None

    def to_representation(self, instance: Article) -> dict[str, Any]:
        data = super().to_representation(instance)
        if len(data.get("content", "")) > settings.PAGE_CONTENT_MAX_CHARS:
            del data["content"]
            data = {"id": data["id"], "title": data["title"], "contentOmitted": True, **data}
        return data


def article_representation(request: HttpRequest, article: Article) -> dict[str, Any]:
    """An article as the REST API answers it (the data of its webhook events)."""
    return ArticleSerializer(article, context={"request": request}).data


class DeletedArticleSerializer(HalSerializer):
    """What the specification shows for a deleted article: curies and doc:blog with its title."""

    _links = LinksField({"doc:blog": _article_blog})


def deleted_article_links(request: HttpRequest, article: Article) -> dict[str, Any]:
    return DeletedArticleSerializer(article, context={"request": request}).data


class CommentSerializer(HalSerializer):
    id = serializers.IntegerField()
    author = serializers.CharField(source="author.get_username", help_text="The author's username.")
    text = serializers.CharField()
    _links = LinksField(
        {
            "self": _to(
                "comment", blog_id="article.blog_id", article_id="article_id", comment_id="pk"
            ),
            "doc:article": _to("article", blog_id="article.blog_id", article_id="article_id"),
        }
    )


class RevisionSerializer(HalSerializer):
    """A revision (`revision.article` set: its links lead up to it). Like an article, `content`
    is left out when that state had none; `replacedBy` when no user is known (a command made
    it, or the user was deleted)."""

    revision = serializers.IntegerField(
        source="version", min_value=1, help_text="The article's version in this state."
    )
    title = serializers.CharField(max_length=TITLE_MAX_LENGTH)
    content = serializers.CharField(required=False, help_text="Left out when the state had none.")
    articleETag = serializers.CharField(
        source="article_etag",
        help_text="The ETag the article had in this state (its JSON representation).",
    )
    replacedAt = serializers.DateTimeField(
        source="history_date",
        default_timezone=UTC,
        help_text="When a replace replaced this state (made the revision).",
    )
    replacedBy = serializers.CharField(
        source="history_user.get_username",
        required=False,
        help_text="The username of who replaced it; left out when unknown.",
    )
    _links = LinksField(
        {
            # A revision's `id` is its article's.
            "self": _to("revision", blog_id="article.blog_id", article_id="id", revision="version"),
            # Untitled: the article's title changes, and a revision's representation does not.
            "doc:article": _to("article", blog_id="article.blog_id", article_id="id"),
        }
    )


def revision_title(member: dict[str, Any]) -> str:
    """An `item` link's title: the revision number and the title it had, so that a list of
    links tells them apart without fetching each."""
    return f"Revision {member['revision']}: {member['title']}"


class ArticlePageSerializer(
    page_serializer("ArticlePage", ArticleInPageSerializer, "totalArticles")
):
    """A page of articles: a blog's (`blog` in the context: its templates) or a search's."""

    _templates = TemplatesField(
        lambda request, _, context: (
            forms.article_page_templates(request, context["blog"]) if "blog" in context else {}
        )
    )


BlogPageSerializer = page_serializer("BlogPage", BlogSerializer, "totalBlogs")
CommentPageSerializer = page_serializer(
    "CommentPage", CommentSerializer, "totalComments", comment_title
)
RevisionPageSerializer = page_serializer(
    "RevisionPage", RevisionSerializer, "totalRevisions", revision_title
)
