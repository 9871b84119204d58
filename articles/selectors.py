"""Reads of more than one query: the pages of blogs, comments and revisions (a blog's articles:
articles.pages)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, Exists, Max, Model, OuterRef, QuerySet, Sum

from articles.models import MAX_ID, Article, ArticleRevision, Comment, Tag
from articles.signals import blog_annotations_of, carry_blog_annotations
from articles.tags import with_tag_names
from blogs.models import Blog
from core.paging import Page


def blog_for_reading(*, blog_id: int) -> Blog | None:
    """The blog with what readers' representations and validators need, or None; `has_tags`
    says whether a page of its articles must read their tag names (articles.pages)."""
    if blog_id > MAX_ID:
        return None
    has_tags = Exists(Tag.objects.filter(blog_id=OuterRef("pk")))
    return Blog.objects.annotate(has_tags=has_tags).filter(pk=blog_id).first()


def blog_for_writing(*, blog_id: int, writer) -> Blog | None:
    """The blog and whether `writer` is one of its authors (Blog.is_author), in one query;
    None when there is no such blog."""
    if blog_id > MAX_ID:
        return None
    blog = _one(
        Blog.objects.annotate(
            writer_is_author=Blog.authorship(writer),
            **blog_annotations_of("pk"),
        ).filter(pk=blog_id)
    )
    if blog is not None:
        blog.remember_authorship(writer, blog.writer_is_author)
    return blog


def article_with_blog(*, blog_id: int, article_id: int, writer=None) -> Article | None:
    """The article `article_id` of blog `blog_id` with its blog, deleted or not, and whether
    `writer` (when given) is an author of the blog, in one query; or None."""
    if blog_id > MAX_ID or article_id > MAX_ID:
        return None
    articles = with_tag_names(
        Article.objects.select_related("blog").filter(pk=article_id, blog_id=blog_id)
    )
    if writer is None:
        return _one(articles)
    article = _one(
        articles.annotate(
            writer_is_author=Blog.authorship(writer, "blog_id"),
            **blog_annotations_of("blog_id"),
        )
    )
    if article is not None:
        article.blog.remember_authorship(writer, article.writer_is_author)
        carry_blog_annotations(article)
    return article


def article_to_comment(*, blog_id: int, article_id: int) -> Article | None:
    """The article `article_id` of blog `blog_id` with only whether it was deleted (a comment's
    service reads the rest under its lock), or None."""
    if blog_id > MAX_ID or article_id > MAX_ID:
        return None
    return _one(Article.objects.only("deleted_at").filter(pk=article_id, blog_id=blog_id))


def _one(queryset: QuerySet[Model]) -> Model | None:
    """The one row a primary key names, or None: `get()` (first() would add an ORDER BY and
    cost a third more to build, on every write)."""
    try:
        return queryset.get()
    except ObjectDoesNotExist:
        return None


def offset_page(items: QuerySet, total: int, page_index: int, page_size: int) -> Page:
    """The page of `items` (ordered) at its OFFSET, for a list of `total` items. Compared with
    `total` before any OFFSET reaches the database: a huge pageIndex costs nothing."""
    offset = (page_index - 1) * page_size
    if offset >= total:
        return Page([], total, page_index, page_size)
    return Page(list(items[offset : offset + page_size]), total, page_index, page_size)


def past_every_table(*, page_index: int, page_size: int) -> bool:
    """Whether the page lies past the end of any list (no table holds more than MAX_ID rows),
    for the pages whose total comes with the rows (a search): both databases refuse a
    LIMIT/OFFSET beyond that signed 64-bit integer."""
    return page_index * page_size > MAX_ID


def blog_page(*, total: int, page_index: int, page_size: int) -> Page[Blog]:
    """Blogs, oldest first; `total` comes from blog_list_state(), read once per request."""
    return offset_page(Blog.objects.order_by("id"), total, page_index, page_size)


@dataclass(frozen=True)
class BlogListState:
    """What identifies the state of the blog list. Ids are never reused, so of two sets of blogs
    with the same count, the later one has the larger sum of ids (what it gained is newer than
    anything it lost); an edit of a blog, or of one of its articles, moves its revision."""

    count: int
    id_sum: int
    revisions: int
    last_modified: datetime | None


def blog_list_state() -> BlogListState:
    state = Blog.objects.aggregate(
        count=Count("id"), id_sum=Sum("id"), revisions=Sum("revision"), last=Max("updated_at")
    )
    return BlogListState(
        state["count"], state["id_sum"] or 0, state["revisions"] or 0, state["last"]
    )


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
    comments = Comment.objects.filter(article=article).select_related("author").order_by("id")
    page = offset_page(comments, total, page_index, page_size)
    for comment in page.items:
        comment.article = article
    return page


def revision_page(*, article: Article, page_index: int, page_size: int) -> Page[ArticleRevision]:
    """The article's kept revisions, newest first, with the users who made them. The count is
    of at most ARTICLE_REVISIONS_KEPT index entries."""
    revisions = ArticleRevision.objects.filter(id=article.pk)
    return offset_page(
        revisions.select_related("history_user").order_by("-version"),
        revisions.count(),
        page_index,
        page_size,
    )


def revision_of(*, article: Article, number: int) -> ArticleRevision | None:
    """Revision `number` (the article's version in that state) of the article, or None."""
    if number > MAX_ID:
        return None
    return (
        ArticleRevision.objects.select_related("history_user")
        .filter(id=article.pk, version=number)
        .first()
    )


def revisions_by_article(*, article_ids: list[int]) -> dict[int, list[ArticleRevision]]:
    """The kept revisions of each of these articles, newest first, in one query."""
    found: dict[int, list[ArticleRevision]] = {pk: [] for pk in article_ids}
    revisions = (
        ArticleRevision.objects.select_related("history_user")
        .filter(id__in=article_ids)
        .order_by("id", "-version")
    )
    for revision in revisions:
        found[revision.id].append(revision)
    return found
