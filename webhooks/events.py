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


def on_change(sender: type, *, event: str, instance: Article | Comment, **kwargs: Any) -> None:
    """articles.signals.changed: the event recorded for the blog's subscriptions that want it."""
    blog = instance.blog if isinstance(instance, Article) else instance.article.blog
    data = _DATA[event]
    announce(blog=blog, event_type=event, data=lambda request: data(request, instance))


def _deleted_article(request: HttpRequest, article: Article) -> dict[str, Any]:
    """The data of a deletion is the tombstone's: the links the 410 answer gives (the blog, with
    its title), with the id and the article's own (now gone) address to tell which one it was."""
    links = deleted_article_links(request, article)["_links"]
    own = api_url(request, "article", blog_id=article.blog_id, article_id=article.pk)
    return {"id": article.pk, "_links": {"curies": links.pop("curies"), "self": link(own), **links}}


def _comment(request: HttpRequest, comment: Comment) -> dict[str, Any]:
    return dict(CommentSerializer(comment, context={"request": request}).data)


def _deleted_comment(request: HttpRequest, comment: Comment) -> dict[str, Any]:
    """As for an article: the id, the comment's former address and the article it was on."""
    ids = {"blog_id": comment.article.blog_id, "article_id": comment.article_id}
    return {
        "id": comment.pk,
        "_links": {
            "curies": curies(request),
            "self": link(api_url(request, "comment", **ids, comment_id=comment.pk)),
            "doc:article": link(api_url(request, "article", **ids)),
        },
    }


_DATA: dict[str, Callable[[HttpRequest, Any], dict[str, Any]]] = {
    "article.created": article_representation,
    "article.replaced": article_representation,
    "article.deleted": _deleted_article,
    "article.published": article_representation,
    "comment.created": _comment,
    "comment.deleted": _deleted_comment,
}
