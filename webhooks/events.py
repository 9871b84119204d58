"""The hooks the article and comment services call, inside their transactions: each names the
event and how to build its data, the resource's HAL representation as the REST API serves it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpRequest

from webhooks.outbox import announce

if TYPE_CHECKING:
    from articles.models import Article, Comment


def article_created(*, article: Article) -> None:
    _article_event("article.created", article)


def article_replaced(*, article: Article) -> None:
    _article_event("article.replaced", article)


def article_deleted(*, article: Article) -> None:
    """The data of a deletion is the tombstone's: the links the 410 answer gives (the blog, with
    its title), with the id and the article's own (now gone) address to tell which one it was."""
    from articles.api.links import api_url, link
    from articles.api.serializers import deleted_article_links

    def data(request: HttpRequest) -> dict[str, Any]:
        links = deleted_article_links(request, article)["_links"]
        own = api_url(request, "article", blog_id=article.blog_id, article_id=article.pk)
        return {
            "id": article.pk,
            "_links": {"curies": links.pop("curies"), "self": link(own), **links},
        }

    announce(blog=article.blog, event_type="article.deleted", data=data)


def comment_created(*, comment: Comment) -> None:
    from articles.api.serializers import CommentSerializer

    def data(request: HttpRequest) -> dict[str, Any]:
        return dict(CommentSerializer(comment, context={"request": request}).data)

    announce(blog=comment.article.blog, event_type="comment.created", data=data)


def comment_deleted(*, comment: Comment) -> None:
    """As for an article: the id, the comment's former address and the article it was on."""
    from articles.api.links import api_url, curies, link

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

    announce(blog=comment.article.blog, event_type="comment.deleted", data=data)


def _article_event(event_type: str, article: Article) -> None:
    from articles.api.serializers import article_representation

    announce(
        blog=article.blog,
        event_type=event_type,
        data=lambda request: article_representation(request, article),
    )
