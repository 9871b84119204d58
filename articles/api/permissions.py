"""Who may write what: blog authorship or a Django permission (for editors)."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.request import Request

from articles.models import Comment
from blogs.models import Blog

ARTICLE_PERMISSION_BY_METHOD = {
    "POST": "articles.add_article",
    "PUT": "articles.change_article",
    "DELETE": "articles.delete_article",
}


def ensure_may_write_articles(request: Request, blog: Blog) -> None:
    """403 unless the token's user is an author of `blog` or holds the permission for the method."""
    user = request.user
    if blog.is_author(user) or user.has_perm(ARTICLE_PERMISSION_BY_METHOD[request.method]):
        return
    raise exceptions.PermissionDenied("You may not write articles in this blog.")


def ensure_may_delete_comment(request: Request, comment: Comment, blog: Blog) -> None:
    user = request.user
    if comment.author_id == user.pk or blog.is_author(user):
        return
    if user.has_perm("articles.delete_comment"):
        return
    raise exceptions.PermissionDenied("Only the comment's author or the blog's authors may.")
