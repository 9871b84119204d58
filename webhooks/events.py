"""What webhooks hear of the article services (articles.signals), inside their transactions: each
event's data is the resource's HAL representation as the REST API serves it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest

from articles.api.serializers import (
    CommentSerializer,
    article_representation,
    deleted_article_links,
)
from articles.models import Article, Comment
from rest.links import api_url, curies, link
from webhooks.outbox import announce

Data = Callable[[HttpRequest], dict[str, Any]]


def on_change(sender: type, *, event: str, instance: Article | Comment, **kwargs: Any) -> None:
    """articles.signals.changed: the event recorded for the blog's subscriptions that want it."""
    blog = instance.blog if isinstance(instance, Article) else instance.article.blog
    announce(blog=blog, event_type=event, data=_DATA[event](instance))


def _article(article: Article) -> Data:
    return lambda request: article_representation(request, article)


def _deleted_article(article: Article) -> Data:
    """The data of a deletion is the tombstone's: the links the 410 answer gives (the blog, with
    its title), with the id and the article's own (now gone) address to tell which one it was."""

    def data(request: HttpRequest) -> dict[str, Any]:
        links = deleted_article_links(request, article)["_links"]
        own = api_url(request, "article", blog_id=article.blog_id, article_id=article.pk)
        return {
            "id": article.pk,
            "_links": {"curies": links.pop("curies"), "self": link(own), **links},
        }

    return data


def _comment(comment: Comment) -> Data:
    return lambda request: dict(CommentSerializer(comment, context={"request": request}).data)


def _deleted_comment(comment: Comment) -> Data:
    """As for an article: the id, the comment's former address and the article it was on."""

    def data(request: HttpRequest) -> dict[str, Any]:
        ids = {"blog_id": comment.article.blog_id, "article_id": comment.article_id}
        return {
            "id": comment.pk,
            "_links": {
                "curies": curies(request),
                "self": link(api_url(request, "comment", **ids, comment_id=comment.pk)),
                "doc:article": link(api_url(request, "article", **ids)),
            },
        }

    return data


_DATA: dict[str, Callable[[Any], Data]] = {
    "article.created": _article,
    "article.replaced": _article,
    "article.deleted": _deleted_article,
    "article.published": _article,
    "comment.created": _comment,
    "comment.deleted": _deleted_comment,
}
