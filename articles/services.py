"""Every write to articles and comments, shared by the REST API, the admin and the commands."""

from __future__ import annotations

import copy
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.utils import timezone

from articles import content as article_content
from articles import pages, slugs
from articles import tags as article_tags
from articles.etags import article_etag
from articles.exceptions import (
    ArticleGone,
    ArticleLocked,
    BlogArchived,
    SlugInvalid,
    SlugTaken,
    VersionConflict,
)
from articles.models import Article, ArticleRevision, ArticleSlug, Comment
from articles.signals import announce, blog_annotations_of, carry_blog_annotations
from blogs.models import Blog
from core import representations

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser


def _blog_touch(*, blog_id: int, at: datetime, count_delta: int = 0) -> Blog:
    """Record a change of one of the blog's articles: a new revision, the count kept exact.
    Returns the row as written (`revision`, `article_count` and `created_at`, which name the
    change to articles.pages) from the UPDATE's RETURNING: no second read. The UPDATE takes the
    blog's row lock and finds no row when the blog is archived (an archive that committed first
    wins): BlogArchived then rolls the whole write back."""
    alias = router.db_for_write(Blog)  # raw() would otherwise go where reads go
    ops = connections[alias].ops
    touched = list(
        Blog.objects.db_manager(alias).raw(
            f"UPDATE {ops.quote_name(Blog._meta.db_table)} SET revision = revision + 1, "  # noqa: S608
            "updated_at = %s, article_count = article_count + %s WHERE id = %s AND archived = %s "
            "RETURNING id, revision, created_at, article_count",
            [ops.adapt_datetimefield_value(at), count_delta, blog_id, False],
        )
    )
    if not touched:
        raise BlogArchived
    return touched[0]


def _article_for_update(article_id: int) -> Article:
    """The article, row-locked until the end of the transaction (on SQLite the write lock)."""
    return Article.objects.select_for_update(of=("self",)).select_related("blog").get(pk=article_id)


def _ensure_writable(article: Article, expected_version: int | None) -> None:
    if article.is_deleted:
        raise ArticleGone
    if article.blog.archived:
        raise BlogArchived
    if article.locked:
        raise ArticleLocked
    if expected_version is not None and article.version != expected_version:
        raise VersionConflict(article.version)


def _compare_and_set(
    article: Article, expected_version: int | None, **changes: Any
) -> tuple[Article, Article]:
    """Write `changes` and the next version to the live, unlocked article if it is still the
    version the caller saw, in one UPDATE (which takes the row lock and, on PostgreSQL,
    re-checks its conditions against a row a concurrent write changed meanwhile). Returns the
    state replaced (a version names one state) and the one written. When no row matches, the
    article is read again to say why (gone, archived, locked, VersionConflict); without
    `expected_version` the write then applies to the version found (the last writer wins)."""
    seen = article
    # When the caller's copy is not of the version to replace, read the one that is (or say why).
    read_again = expected_version is not None and seen.version != expected_version
    while True:
        if read_again:
            seen = Article.objects.select_related("blog").get(pk=seen.pk)
            _ensure_writable(seen, expected_version)
        version = seen.version if expected_version is None else expected_version
        written = Article.objects.filter(
            pk=seen.pk, version=version, deleted_at=None, locked=False
        ).update(version=version + 1, **changes)
        if written:
            return seen, _changed(seen, version=version + 1, **changes)
        read_again = True


def _changed(article: Article, **changes: Any) -> Article:
    """A copy of `article` with `changes` (the caller's copy is left as it was read)."""
    changed = copy.copy(article)
    for name, value in changes.items():
        setattr(changed, name, value)
    return changed


@cache
def _revisions() -> Any:
    """`Article.history`, simple-history's manager of the revisions, taken once: the descriptor
    builds a new manager class at every access (a third of a revision's cost), and the manager
    of the model, like `objects`, holds no state of its own."""
    return Article.history


def _revision_keep(
    *, previous: Article, at: datetime, actor: AbstractBaseUser | None = None
) -> None:
    """Keep `previous` (the state a replace replaced) as a revision made by `actor` at `at`, in
    one INSERT by simple-history's bulk_history_create (the replace is an UPDATE, which no
    signal sees). Past ARTICLE_REVISIONS_KEPT the oldest go in one DELETE: the revisions are of
    distinct versions, so those at or below `version - kept` are the surplus."""
    # Who made it is a user of the database: an anonymous request's user is nobody.
    user = actor if actor is not None and actor.is_authenticated else None
    _revisions().bulk_history_create(
        [previous],
        update=True,
        default_user=user,
        default_date=at,
        custom_historical_attrs={"article_etag": article_etag(previous)},
    )
    oldest_kept = previous.version - settings.ARTICLE_REVISIONS_KEPT + 1
    if oldest_kept > 1:
        ArticleRevision.objects.filter(id=previous.pk, version__lt=oldest_kept).delete()


def _slug_check(*, blog_id: int, slug: str, article_id: int | None = None) -> None:
    """A slug given by a client: valid, and leading to no other article of the blog."""
    if not slugs.slug_is_valid(slug):
        raise SlugInvalid
    owner = slugs.slug_owner(blog_id=blog_id, slug=slug)
    if owner is not None and owner != article_id:
        raise SlugTaken


@transaction.atomic
def article_create(
    *,
    blog: Blog,
    title: str,
    content: str | None = None,
    actor: AbstractBaseUser | None = None,
    slug: str | None = None,
    tags: list[str] | None = None,
    content_format: str | None = None,
    published_at: datetime | None = None,
) -> Article:
    """A new, published article (no revision yet: revisions keep replaced states). `actor` (a
    user, or None) is accepted from every entry point like the other writes'. `slug` None: made
    from the title, unique in the blog; given, it must be valid and free (SlugInvalid,
    SlugTaken). `published_at` None: now. `tags`: names (articles.tags). Markdown that cannot be
    rendered within its budget raises ContentTooComplex (before the blog's row lock is taken)."""
    article_content.content_check(content, content_format)
    now = timezone.now()
    # The UPDATE both keeps the count exact and takes the blog's row lock: creates in one blog
    # queue there, so the free slug found next is still free at the INSERT.
    touched = _blog_touch(blog_id=blog.pk, at=now, count_delta=1)
    if slug is None:
        slug = slugs.slug_unique(blog_id=blog.pk, title=title)
    else:
        _slug_check(blog_id=blog.pk, slug=slug)
    article = Article(
        blog=blog,
        title=title,
        content=content,
        created_at=now,
        updated_at=now,
        slug=slug,
        published_at=published_at or now,
        content_format=content_format or "text",
    )
    # The constraints (non-blank title, lengths) are checked by the database on the write;
    # validating them here too would cost a query each.
    article.full_clean(exclude=["blog", "tags"], validate_constraints=False)
    article.save(force_insert=True)
    pages.order_changed(blog=touched, before=None, after=article)
    article.tag_names = []
    if tags:
        article_tags.set_tags(article, tags, replace=False)
    representations.article_changed(article_id=article.pk, blog_id=blog.pk)
    announce("article.created", article)
    return article


@transaction.atomic
def article_replace(
    *,
    article: Article,
    title: str,
    content: str | None = None,
    expected_version: int | None = None,
    actor: AbstractBaseUser | None = None,
    slug: str | None = None,
    tags: list[str] | None = None,
    content_format: str | None = None,
    published_at: datetime | None = None,
) -> Article:
    """Replace title and content as a whole; `expected_version` makes it a compare-and-set.
    The state replaced is kept as a revision made by `actor` (a user, or None). `slug`, `tags`,
    `content_format`, `published_at`: None keeps them; a new slug's predecessor is kept in
    ArticleSlug (by-slug still leads here). Markdown that cannot be rendered within its budget
    raises ContentTooComplex."""
    article_content.content_check(content, content_format or article.content_format)
    now = timezone.now()
    changes: dict[str, Any] = {"title": title, "content": content, "updated_at": now}
    if content_format is not None:
        changes["content_format"] = content_format
    if published_at is not None:
        changes["published_at"] = published_at
    new_slug = slug is not None and slug != article.slug
    if new_slug:
        _slug_check(blog_id=article.blog_id, slug=slug, article_id=article.pk)
        changes["slug"] = slug
    _changed(article, **changes).full_clean(exclude=["blog", "tags"], validate_constraints=False)
    try:
        previous, replaced = _compare_and_set(article, expected_version, **changes)
    except IntegrityError as error:
        # Another article took the slug between the check and the write.
        raise SlugTaken from error
    if new_slug:
        if previous.slug:
            ArticleSlug.objects.create(
                blog_id=replaced.blog_id, slug=previous.slug, article_id=replaced.pk
            )
        # Back to one of its own old slugs: it is current again.
        ArticleSlug.objects.filter(blog_id=replaced.blog_id, slug=slug).delete()
    if tags is not None:
        article_tags.set_tags(replaced, tags)
    touched = _blog_touch(blog_id=replaced.blog_id, at=now)
    pages.order_changed(blog=touched, before=previous, after=replaced)
    _revision_keep(previous=previous, at=now, actor=actor)
    representations.article_changed(article_id=replaced.pk, blog_id=replaced.blog_id)
    announce("article.replaced", replaced)
    return replaced


@transaction.atomic
def article_delete(
    *, article: Article, expected_version: int | None = None, actor: AbstractBaseUser | None = None
) -> Article:
    """Leave a tombstone: the article and its revisions answer 410 Gone from now on. The row
    lock comes first and the time after it: a comment being written holds the lock
    (comment_create), so the tombstone's time is later than that of every comment the article
    keeps, and its event follows theirs."""
    _article_for_update(article.pk)
    now = timezone.now()
    previous, deleted = _compare_and_set(article, expected_version, deleted_at=now, updated_at=now)
    touched = _blog_touch(blog_id=deleted.blog_id, at=now, count_delta=-1)
    pages.order_changed(blog=touched, before=previous, after=None)
    ArticleRevision.objects.filter(id=deleted.pk).delete()
    representations.article_changed(article_id=deleted.pk, blog_id=deleted.blog_id)
    announce("article.deleted", deleted)
    return deleted


@transaction.atomic
def article_set_locked(*, article: Article, locked: bool) -> Article:
    current = _article_for_update(article.pk)
    if current.is_deleted:
        raise ArticleGone
    if current.locked != locked:
        current.locked = locked
        current.save(update_fields=["locked"])
        # The lock decides the article's HAL-FORMS templates (articles.api.forms).
        representations.article_changed(article_id=current.pk, blog_id=current.blog_id)
    return current


def article_lock(*, article: Article) -> Article:
    return article_set_locked(article=article, locked=True)


def article_unlock(*, article: Article) -> Article:
    return article_set_locked(article=article, locked=False)


@transaction.atomic
def comment_create(*, article: Article, author, text: str) -> Comment:
    """A comment on the live article. The article's row stays locked until the comment commits,
    so that a delete (which takes the same lock first) cannot come between the check and the
    insert: the comment is made before the deletion, or refused with ArticleGone. The insert
    alone would not do: its foreign key's lock does not conflict with an UPDATE of the article.
    `no_key` (FOR NO KEY UPDATE) is the weakest lock an UPDATE waits for; comments on one
    article queue behind each other for their short transactions."""
    current = (
        Article.objects.select_for_update(of=("self",), no_key=True)
        .select_related("blog")
        .annotate(**blog_annotations_of("blog_id"))
        .get(pk=article.pk)
    )
    # What the listeners asked to know of the blog (articles.signals) comes with the lock.
    carry_blog_annotations(current)
    if current.is_deleted:
        raise ArticleGone
    if current.blog.archived:
        raise BlogArchived
    now = timezone.now()
    comment = Comment(article=current, author=author, text=text, created_at=now, updated_at=now)
    # The constraints (non-blank text, its length) are checked by the database on the write;
    # validating them here too would cost a query and a savepoint each.
    comment.full_clean(exclude=["article", "author"], validate_constraints=False)
    comment.save(force_insert=True)
    representations.changed([representations.article_comments_generation(current.pk)])
    announce("comment.created", comment)
    return comment


@transaction.atomic
def comment_delete(*, comment: Comment) -> bool:
    """Delete the comment; False when another request deleted it first (of several deletes at
    once exactly one deletes it: the row's DELETE is the decision)."""
    if Blog.objects.filter(articles__comments=comment, archived=True).exists():
        raise BlogArchived
    deleted, _ = Comment.objects.filter(pk=comment.pk).delete()
    if deleted:
        representations.changed([representations.article_comments_generation(comment.article_id)])
        announce("comment.deleted", comment)
    return deleted > 0
