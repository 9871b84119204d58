"""Drafts: what an author writes before readers see it (docs/decisions/publishing.md). A draft is
a resource beside the articles, readable by its blog's authors only; publishing it creates or
replaces an article."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from articles.models import CONTENT_FORMATS, SLUG_MAX_LENGTH, Article
from blogs.models import TITLE_MAX_LENGTH, Blog


class DraftQuerySet(models.QuerySet):
    def open(self) -> DraftQuerySet:
        """Neither published nor deleted."""
        return self.filter(published_at__isnull=True, deleted_at__isnull=True)


class Draft(models.Model):
    blog = models.ForeignKey(Blog, on_delete=models.CASCADE, related_name="drafts", db_index=False)
    article = models.ForeignKey(
        Article,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="drafts",
        help_text="The published article this draft edits; empty for a new article.",
    )
    article_etag = models.CharField(
        max_length=80,
        blank=True,
        help_text="The article's ETag when the draft started from it: publishing is refused "
        "(409) when the article changed since.",
    )
    title = models.CharField(max_length=TITLE_MAX_LENGTH)
    content = models.TextField(null=True, blank=True)  # noqa: DJ001 (as the article's)
    content_format = models.CharField(max_length=10, choices=CONTENT_FORMATS, default="text")
    tags = models.JSONField(default=list, blank=True, help_text="Tag names.")
    slug = models.SlugField(max_length=SLUG_MAX_LENGTH, blank=True, default="", db_index=False)
    publish_at = models.DateTimeField(
        null=True, blank=True, help_text="When the draft is to be published; empty: not scheduled."
    )
    # The scheduler's bookkeeping, not the draft's representation: its version stays.
    queued_for = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="The time the scheduler's message was sent for; a draft whose publish_at "
        "differs has no message yet (drafts.scheduling).",
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="drafts"
    )
    version = models.PositiveBigIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)
    # A published or deleted draft stays as a tombstone (410), as a deleted article does.
    published_at = models.DateTimeField(null=True, blank=True, editable=False)
    published_article = models.ForeignKey(
        Article, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", editable=False
    )
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = DraftQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["blog", "id"], name="draft_blog_id_idx"),
            # The scheduler's sweep: open drafts whose time has come or comes within the
            # message window (drafts.publishing.sweep).
            models.Index(
                fields=["publish_at"],
                name="draft_scheduled_idx",
                condition=Q(
                    publish_at__isnull=False, published_at__isnull=True, deleted_at__isnull=True
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_gone(self) -> bool:
        return self.published_at is not None or self.deleted_at is not None
