"""Reads of more than one query: the pages of blogs, articles and comments."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Generic, TypeVar

from django.db.models import Count, Max, Sum

from articles.models import Article, Comment
from articles.sql import MAX_ID, FieldRead, fetch
from blogs.models import Blog

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    total: int
    page_index: int
    page_size: int

    @property
    def total_pages(self) -> int:
        return -(-self.total // self.page_size)

    @property
    def offset(self) -> int:
        return (self.page_index - 1) * self.page_size


# What a reader's representation, its validators and the write checks read (articles.sql says why
# these two reads are SQL written once).
_ARTICLE = FieldRead(
    Article, ("id", "blog_id", "title", "content", "version", "locked", "updated_at", "deleted_at")
)
_BLOG = FieldRead(Blog, ("id", "title", "archived", "article_count", "revision", "updated_at"))


# The SQL below (S608) is built from the models' tables and columns, quoted by the connection;
# every value is a query parameter.


@cache
def _blog_sql() -> str:
    return f"SELECT {_BLOG.columns()} FROM {_BLOG.table} WHERE {_BLOG.column('id')} = %s"  # noqa: S608


@cache
def _article_with_blog_sql() -> str:
    return (
        f"SELECT {_ARTICLE.columns('a')}, {_BLOG.columns('b')} FROM {_ARTICLE.table} a"  # noqa: S608
        f" INNER JOIN {_BLOG.table} b ON b.{_BLOG.column('id')} = a.{_ARTICLE.column('blog_id')}"
        f" WHERE a.{_ARTICLE.column('id')} = %s AND a.{_ARTICLE.column('blog_id')} = %s"
    )


@cache
def _page_sql(backwards: bool) -> str:
    """A page's rows by the ids of the page, taken from the partial (blog_id, id) index of the
    live articles, in one statement."""
    article_id, blog_id = _ARTICLE.column("id"), _ARTICLE.column("blog_id")
    ids = (
        f"SELECT {article_id} FROM {_ARTICLE.table} WHERE {blog_id} = %s"  # noqa: S608
        f" AND {_ARTICLE.column('deleted_at')} IS NULL"
        f" ORDER BY {article_id} {'DESC' if backwards else 'ASC'} LIMIT %s OFFSET %s"
    )
    return (
        f"SELECT {_ARTICLE.columns()} FROM {_ARTICLE.table}"  # noqa: S608
        f" WHERE {article_id} IN ({ids}) ORDER BY {article_id}"
    )


def blog_for_reading(*, blog_id: int) -> Blog | None:
    """The blog with what readers' representations and validators need, or None."""
    if blog_id > MAX_ID:
        return None
    rows = fetch(_blog_sql(), [blog_id])
    return _BLOG.instance(rows[0]) if rows else None


def article_with_blog(*, blog_id: int, article_id: int) -> Article | None:
    """The article `article_id` of blog `blog_id` with its blog, deleted or not, in one query;
    None when there is no such article in that blog (or no such blog)."""
    if blog_id > MAX_ID or article_id > MAX_ID:
        return None
    rows = fetch(_article_with_blog_sql(), [article_id, blog_id])
    if not rows:
        return None
    width = len(_ARTICLE.attnames)
    article = _ARTICLE.instance(rows[0][:width])
    article.blog = _BLOG.instance(rows[0][width:])
    return article


def _past_end(total: int, page_index: int, page_size: int) -> bool:
    # Compared before any OFFSET reaches the database: a huge pageIndex costs nothing.
    return (page_index - 1) * page_size >= total


def article_page(*, blog: Blog, page_index: int, page_size: int) -> Page[Article]:
    """Live articles of `blog`, oldest first.

    The total comes from Blog.article_count (kept exact by the services, so no COUNT(*)); the
    page's ids come from the partial (blog_id, id) index and only those rows are read, in one
    statement, so a deep page skips index entries, not table rows, from whichever end is
    nearer, and other blogs cost nothing.
    """
    total = blog.article_count
    if _past_end(total, page_index, page_size):
        return Page([], total, page_index, page_size)
    offset = (page_index - 1) * page_size
    end = min(offset + page_size, total)
    if offset <= total - end:
        rows = fetch(_page_sql(False), [blog.pk, end - offset, offset])
    else:
        # Past the middle, the page is nearer the end: walk the index backwards, so the entries
        # skipped are at most half the blog's (the exact count makes the positions known).
        rows = fetch(_page_sql(True), [blog.pk, end - offset, total - end])
    articles = [_ARTICLE.instance(row) for row in rows]
    for article in articles:
        article.blog = blog  # every article links to its blog by title: no query per article
    return Page(articles, total, page_index, page_size)


def blog_page(*, total: int, page_index: int, page_size: int) -> Page[Blog]:
    """Blogs, oldest first; `total` comes from blog_list_state(), read once per request."""
    if _past_end(total, page_index, page_size):
        return Page([], total, page_index, page_size)
    offset = (page_index - 1) * page_size
    return Page(
        list(Blog.objects.order_by("id")[offset : offset + page_size]),
        total,
        page_index,
        page_size,
    )


@dataclass(frozen=True)
class BlogListState:
    """What identifies the state of the blog list: any change of any blog changes it."""

    count: int
    revisions: int
    last_modified: datetime | None


def blog_list_state() -> BlogListState:
    state = Blog.objects.aggregate(
        count=Count("id"), revisions=Sum("revision"), last=Max("updated_at")
    )
    return BlogListState(state["count"], state["revisions"] or 0, state["last"])


@dataclass(frozen=True)
class CommentListState:
    """Identifies the set of an article's comments: ids only grow, so any change of the set
    changes the count or the sum of the ids; an edit changes the latest modification."""

    count: int
    id_sum: int
    last_modified: datetime


def comment_list_state(*, article: Article) -> CommentListState:
    state = Comment.objects.filter(article=article).aggregate(
        count=Count("id"), id_sum=Sum("id"), last=Max("updated_at")
    )
    last = max(state["last"], article.created_at) if state["last"] else article.created_at
    return CommentListState(state["count"], state["id_sum"] or 0, last)


def comment_page(*, article: Article, total: int, page_index: int, page_size: int) -> Page[Comment]:
    """An article's comments, oldest first; `total` comes from comment_list_state()."""
    if _past_end(total, page_index, page_size):
        return Page([], total, page_index, page_size)
    offset = (page_index - 1) * page_size
    comments = list(
        Comment.objects.filter(article=article)
        .select_related("author")
        .order_by("id")[offset : offset + page_size]
    )
    for comment in comments:
        comment.article = article
    return Page(comments, total, page_index, page_size)
