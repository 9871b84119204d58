"""Every write to drafts, and their publication (docs/decisions/publishing.md, "Drafts and
previews"). Publishing goes through the article services, so an article made or replaced from a
draft is written, counted, cached, revised and announced exactly as one written over the API."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from articles import services as article_services
from articles.etags import article_etag
from articles.exceptions import BlogArchived
from articles.models import Article
from articles.signals import announce
from blogs.models import Blog
from drafts.exceptions import (
    ArticleChangedSinceDraft,
    DraftGone,
    DraftNotDue,
    DraftVersionConflict,
    InvalidPublishTime,
    PreviewLinkExpired,
    PreviewLinkInvalid,
)
from drafts.models import Draft

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

PREVIEW_SALT = "drafts.preview"


def _author(actor: AbstractBaseUser | None) -> AbstractBaseUser | None:
    return actor if actor is not None and actor.is_authenticated else None


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
    """A new draft of a new article in `blog`."""
    if blog.archived:
        raise BlogArchived
    now = timezone.now()
    draft = Draft(
        blog=blog,
        title=title,
        content=content,
        content_format=content_format,
        tags=list(tags or []),
        slug=slug or "",
        author=_author(actor),
        created_at=now,
        updated_at=now,
    )
    draft.full_clean(exclude=["blog", "author", "article"], validate_constraints=False)
    draft.save(force_insert=True)
    return draft


@transaction.atomic
def draft_from_article(*, article: Article, actor: AbstractBaseUser | None = None) -> Draft:
    """A draft that edits the published `article`, starting from its title and content; it
    remembers the article's ETag so that publishing refuses (409) if the article changed since."""
    if article.blog.archived:
        raise BlogArchived
    now = timezone.now()
    draft = Draft(
        blog_id=article.blog_id,
        article=article,
        article_etag=article_etag(article),
        title=article.title,
        content=article.content,
        content_format=getattr(article, "content_format", "text") or "text",
        slug=getattr(article, "slug", "") or "",
        tags=_article_tag_names(article),
        author=_author(actor),
        created_at=now,
        updated_at=now,
    )
    draft.save(force_insert=True)
    draft.blog = article.blog
    return draft


def _article_tag_names(article: Article) -> list[str]:
    return [tag.name for tag in article.tags.all()] if article.pk else []


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
    result = Draft.objects.select_related("blog", "article").get(pk=draft.pk)
    return result


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
    """Replace the draft's fields as a whole (its schedule stays); a compare-and-set with
    `expected_version`."""
    _ensure_blog_writable(draft)
    candidate = Draft(
        blog_id=draft.blog_id,
        title=title,
        content=content,
        content_format=content_format,
        tags=list(tags or []),
        slug=slug or "",
    )
    candidate.full_clean(exclude=["blog", "author", "article"], validate_constraints=False)
    return _write(
        draft,
        expected_version,
        title=title,
        content=content,
        content_format=content_format,
        tags=list(tags or []),
        slug=slug or "",
    )


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
    draft (and, with `expected`, only that version of it), inside the transaction that writes the
    article; of any number of concurrent publications of one draft (a request, the scheduler's
    task, its sweep) exactly one writes, the others raise DraftGone (or DraftVersionConflict)
    and write nothing. A draft of an article that changed since the draft started from it raises
    ArticleChangedSinceDraft and nothing is written.

    The scheduler's publication (drafts.publishing) adds its own conditions to the same guard:
    `due_at`, only a draft scheduled at or before that moment; `publish_at`, only one still
    scheduled for that time (not rescheduled or unscheduled since its message was sent); an open
    draft that does not match raises DraftNotDue."""
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
    if draft.article_id is None:
        article = article_services.article_create(blog=blog, actor=actor, **fields)
        created = True
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
        created = False
    Draft.objects.filter(pk=draft.pk).update(published_article=article)
    announce("article.published", article)
    return article, created


def _parse_time(value: datetime) -> datetime:
    if timezone.is_naive(value):
        raise InvalidPublishTime("publishAt must carry its offset (RFC 3339).")
    return value


@transaction.atomic
def draft_schedule(
    draft: Draft, publish_at: datetime, *, expected_version: int | None = None
) -> Draft:
    """Schedule the draft's publication at `publish_at` (in the future, else
    InvalidPublishTime); once committed, the scheduler is told (drafts.scheduling)."""
    _ensure_blog_writable(draft)
    publish_at = _parse_time(publish_at)
    if publish_at <= timezone.now():
        raise InvalidPublishTime
    scheduled = _write(draft, expected_version, publish_at=publish_at)
    transaction.on_commit(lambda: _tell_scheduler(scheduled))
    return scheduled


def _tell_scheduler(draft: Draft) -> None:
    from drafts import scheduling

    scheduling.schedule(draft)


@transaction.atomic
def draft_unschedule(draft: Draft, *, expected_version: int | None = None) -> Draft:
    """No scheduled publication any more (a message already sent finds the draft unscheduled and
    publishes nothing: drafts.tasks checks publish_at)."""
    _ensure_blog_writable(draft)
    return _write(draft, expected_version, publish_at=None)


# --- preview links ----------------------------------------------------------------------------


def preview_token(draft: Draft) -> tuple[str, datetime]:
    """A signed token naming the draft (Django's signing with the SECRET_KEY: no table), and
    when it expires (PREVIEW_LINK_HOURS after now)."""
    token = signing.dumps({"draft": draft.pk}, salt=PREVIEW_SALT, compress=False)
    expires_at = timezone.now() + timedelta(hours=settings.PREVIEW_LINK_HOURS)
    return token, expires_at


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
    if not isinstance(draft_id, int):
        raise PreviewLinkInvalid
    draft = Draft.objects.open().select_related("blog", "article").filter(pk=draft_id).first()
    if draft is None:
        raise PreviewLinkInvalid
    return draft
