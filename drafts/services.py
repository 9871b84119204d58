"""Every write to drafts, and their publication (docs/decisions/publishing.md, "Drafts and
previews"). Publishing goes through the article services, so an article made or replaced from a
draft is written, counted, cached, revised and announced exactly as one written over the API."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from articles import content as article_content
from articles import services as article_services
from articles.etags import article_etag
from articles.exceptions import BlogArchived
from articles.models import Article
from articles.signals import announce
from blogs.models import Blog
from drafts import scheduling
from drafts.exceptions import (
    ArticleChangedSinceDraft,
    DraftGone,
    DraftNotDue,
    DraftVersionConflict,
    PreviewLinkExpired,
    PreviewLinkInvalid,
)
from drafts.models import Draft

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

PREVIEW_SALT = "drafts.preview"


def _checked(
    blog_id: int,
    title: str,
    content: str | None,
    content_format: str,
    tags: list[str] | None,
    slug: str,
) -> dict[str, Any]:
    """A draft's own fields, validated as the model's fields are, its Markdown within the render
    budget (ContentTooComplex: a preview renders it)."""
    article_content.content_check(content, content_format)
    fields = {
        "title": title,
        "content": content,
        "content_format": content_format,
        "tags": list(tags or []),
        "slug": slug or "",
    }
    Draft(blog_id=blog_id, **fields).full_clean(
        exclude=["blog", "author", "article"], validate_constraints=False
    )
    return fields


def _insert(actor: AbstractBaseUser | None, **fields: Any) -> Draft:
    now = timezone.now()
    author = actor if actor is not None and actor.is_authenticated else None
    draft = Draft(author=author, created_at=now, updated_at=now, **fields)
    draft.save(force_insert=True)
    return draft


@transaction.atomic
def draft_create(
    *,
    blog: Blog,
    title: str,
    content: str | None = None,
    content_format: str = "text",
    tags: list[str] | None = None,
    slug: str = "",
    actor: AbstractBaseUser | None = None,
) -> Draft:
    if blog.archived:
        raise BlogArchived
    fields = _checked(blog.pk, title, content, content_format, tags, slug)
    return _insert(actor, blog=blog, **fields)


@transaction.atomic
def draft_from_article(*, article: Article, actor: AbstractBaseUser | None = None) -> Draft:
    """A draft that edits the published `article`, starting from its fields; it remembers the
    article's ETag so that publishing refuses (409) if the article changed since."""
    if article.blog.archived:
        raise BlogArchived
    return _insert(
        actor,
        blog=article.blog,
        article=article,
        article_etag=article_etag(article),
        title=article.title,
        content=article.content,
        content_format=article.content_format or "text",
        slug=article.slug or "",
        tags=[tag.name for tag in article.tags.all()],
    )


def _ensure_blog_writable(draft: Draft) -> None:
    """An archived blog is read-only: its drafts too (409)."""
    if Blog.objects.filter(pk=draft.blog_id, archived=True).exists():
        raise BlogArchived


def _write(draft: Draft, expected_version: int | None, **changes: Any) -> Draft:
    """Compare-and-set on the open draft: `changes` and the next version in one UPDATE, only if
    the draft is still open and (with `expected_version`) still that version."""
    version = draft.version if expected_version is None else expected_version
    now = timezone.now()
    written = (
        Draft.objects.open()
        .filter(pk=draft.pk, version=version)
        .update(version=F("version") + 1, updated_at=now, **changes)
    )
    if not written:
        current = Draft.objects.filter(pk=draft.pk).first()
        if current is None or current.is_gone:
            raise DraftGone
        if expected_version is not None:
            raise DraftVersionConflict
        # An unconditional write: the last writer wins, on the version it finds.
        return _write(current, None, **changes)
    return Draft.objects.select_related("blog", "article").get(pk=draft.pk)


@transaction.atomic
def draft_replace(
    *,
    draft: Draft,
    title: str,
    content: str | None = None,
    content_format: str = "text",
    tags: list[str] | None = None,
    slug: str = "",
    expected_version: int | None = None,
) -> Draft:
    """Replace the draft's fields as a whole; its schedule stays."""
    _ensure_blog_writable(draft)
    fields = _checked(draft.blog_id, title, content, content_format, tags, slug)
    return _write(draft, expected_version, **fields)


@transaction.atomic
def draft_delete(*, draft: Draft, expected_version: int | None = None) -> Draft:
    """Leave a tombstone: the draft answers 410 from now on."""
    _ensure_blog_writable(draft)
    return _write(draft, expected_version, deleted_at=timezone.now())


def _article_fields(draft: Draft) -> dict[str, Any]:
    """What a draft's publication writes into its article through articles.services: title,
    content, its format and tags, and its slug when the author gave one (else a new article's is
    made from the title, and a replaced article keeps its own)."""
    return {
        "title": draft.title,
        "content": draft.content,
        "content_format": draft.content_format,
        "tags": list(draft.tags),
        "slug": draft.slug or None,
    }


@transaction.atomic
def draft_publish(
    draft: Draft,
    *,
    expected: int | None = None,
    actor: AbstractBaseUser | None = None,
    due_at: datetime | None = None,
    publish_at: datetime | None = None,
) -> tuple[Article, bool]:
    """Publish the draft now: a new article (created True) or the replaced one (False).

    The one guarded transition: the UPDATE that marks the draft published matches only an open
    draft (with `expected`, only that version; with the scheduler's `due_at`, only one scheduled
    at or before then, and `publish_at`, only one still scheduled for that time), inside the
    transaction that writes the article. Of concurrent publications of one draft (a request, the
    scheduler's task, its sweep) exactly one writes; the others raise DraftGone,
    DraftVersionConflict or DraftNotDue and write nothing. A draft of an article that changed
    since the draft started from it raises ArticleChangedSinceDraft, and nothing is written."""
    now = timezone.now()
    guard = Draft.objects.open().filter(pk=draft.pk)
    if expected is not None:
        guard = guard.filter(version=expected)
    if due_at is not None:
        guard = guard.filter(publish_at__lte=due_at)
    if publish_at is not None:
        guard = guard.filter(publish_at=publish_at)
    if guard.update(published_at=now, updated_at=now, version=F("version") + 1) != 1:
        current = Draft.objects.filter(pk=draft.pk).first()
        if current is None or current.is_gone:
            raise DraftGone
        if expected is None:
            raise DraftNotDue
        raise DraftVersionConflict
    blog = Blog.objects.get(pk=draft.blog_id)
    if blog.archived:
        raise BlogArchived
    fields = _article_fields(draft)
    created = draft.article_id is None
    if created:
        article = article_services.article_create(blog=blog, actor=actor, **fields)
    else:
        current = (
            Article.objects.select_for_update(of=("self",))
            .select_related("blog")
            .get(pk=draft.article_id)
        )
        if not current.is_deleted:
            etag = article_etag(current)
            if draft.article_etag and etag != draft.article_etag:
                raise ArticleChangedSinceDraft(started_from=draft.article_etag, current=etag)
        article = article_services.article_replace(
            article=current, expected_version=current.version, actor=actor, **fields
        )
        article.blog = current.blog
    Draft.objects.filter(pk=draft.pk).update(published_article=article)
    announce("article.published", article)
    return article, created


@transaction.atomic
def draft_schedule(
    draft: Draft, publish_at: datetime, *, expected_version: int | None = None
) -> Draft:
    """InvalidPublishTime unless the time is allowed (drafts.scheduling.check_publish_time); once
    committed, the scheduler is told (drafts.scheduling.hand_over)."""
    _ensure_blog_writable(draft)
    scheduling.check_publish_time(publish_at)
    scheduled = _write(draft, expected_version, publish_at=publish_at)
    transaction.on_commit(partial(scheduling.hand_over, scheduled.pk, publish_at))
    return scheduled


@transaction.atomic
def draft_unschedule(draft: Draft, *, expected_version: int | None = None) -> Draft:
    """No scheduled publication any more (a message already sent finds the draft unscheduled and
    publishes nothing: drafts.tasks checks publish_at)."""
    _ensure_blog_writable(draft)
    return _write(draft, expected_version, publish_at=None)


def preview_token(draft: Draft) -> tuple[str, datetime]:
    """A token naming the draft, signed with the SECRET_KEY (no table), and when it expires."""
    token = signing.dumps({"draft": draft.pk}, salt=PREVIEW_SALT, compress=False)
    return token, timezone.now() + timedelta(hours=settings.PREVIEW_LINK_HOURS)


def draft_for_preview(token: str) -> Draft:
    """The open draft a preview token names: PreviewLinkExpired past PREVIEW_LINK_HOURS,
    PreviewLinkInvalid for a token not ours (tampered) or a draft gone."""
    try:
        payload = signing.loads(
            token, salt=PREVIEW_SALT, max_age=timedelta(hours=settings.PREVIEW_LINK_HOURS)
        )
    except signing.SignatureExpired:
        raise PreviewLinkExpired from None
    except signing.BadSignature:
        raise PreviewLinkInvalid from None
    draft_id = payload.get("draft") if isinstance(payload, dict) else None
    drafts = Draft.objects.open().select_related("blog", "article")
    draft = drafts.filter(pk=draft_id).first() if isinstance(draft_id, int) else None
    if draft is None:
        raise PreviewLinkInvalid
    return draft
