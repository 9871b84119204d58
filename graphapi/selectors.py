"""Reads of the live blog data for the GraphQL root resolvers (the Star Wars data is served by
graphapi.catalogue)."""

from __future__ import annotations

from articles.models import Article
from articles.selectors import MAX_ID
from blogs.models import Blog

# A longer number names nothing, and must not reach int(), which refuses strings of more than
# 4,300 digits.
_MAX_ID_DIGITS = len(str(MAX_ID))


def parse_id(text: str) -> int | None:
    """The integer an ID argument names, or None when it names nothing."""
    # Ids are plain decimal numbers; int() would also take " 1", "1_0" or non-ASCII digits.
    if len(text) > _MAX_ID_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= MAX_ID else None


def blog_for_reading(*, blog_id: str) -> Blog | None:
    """A blog as readers see it, archived ones included (they stay readable)."""
    pk = parse_id(blog_id)
    return None if pk is None else Blog.objects.filter(pk=pk).first()


def article_for_reading(*, blog_id: str, article_id: str) -> Article | None:
    """A live article of that blog: a deleted one, or one of another blog, is not found."""
    blog_pk, article_pk = parse_id(blog_id), parse_id(article_id)
    if blog_pk is None or article_pk is None:
        return None
    return Article.objects.live().in_blog(blog_pk).filter(pk=article_pk).first()
