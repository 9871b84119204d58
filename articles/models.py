from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from simple_history.models import HistoricalRecords

from blogs.models import TITLE_MAX_LENGTH, Blog, non_blank_text_constraints

COMMENT_MAX_LENGTH = 10_000
# The largest id a BigAutoField holds: a larger one in a URL names nothing, and must not reach
# the database (PostgreSQL would refuse the parameter, SQLite cannot hold it).
MAX_ID = 2**63 - 1
SLUG_MAX_LENGTH = 220
TAG_NAME_MAX_LENGTH = 50
TAG_SLUG_MAX_LENGTH = 60
# How an article's or a draft's `content` is written (docs/decisions/publishing.md).
CONTENT_FORMATS = (("text", "Plain text"), ("markdown", "Markdown (CommonMark)"))
# The columns a page of articles may be sorted by beside the id, and their name in `sort=` and
# in their index's name.
SORT_COLUMNS = {"created_at": "created", "updated_at": "updated", "title": "title"}


class ArticleQuerySet(models.QuerySet):
    def live(self) -> ArticleQuerySet:
        return self.filter(deleted_at__isnull=True)

    def deleted(self) -> ArticleQuerySet:
        return self.filter(deleted_at__isnull=False)

    def in_blog(self, blog_id: int) -> ArticleQuerySet:
        return self.filter(blog_id=blog_id)


class RevisionRecords(HistoricalRecords):
    """django-simple-history's records, as revisions: one per article and version, which a
    unique constraint says (and whose index serves every lookup: by article, newest first)."""

    def get_meta_options(self, model: type[models.Model]) -> dict:
        options = super().get_meta_options(model)
        options["constraints"] = [
            models.UniqueConstraint(fields=["id", "version"], name="article_revision_unique")
        ]
        return options


class RevisionFields(models.Model):
    """What a revision holds beside the article's own fields (simple-history's `bases`)."""

    article_etag = models.CharField(
        max_length=80,
        help_text="The ETag the article had in this state: the If-Match of the replace that "
        "made the revision.",
    )

    class Meta:
        abstract = True


class Tag(models.Model):
    """A tag of a blog's articles: its name as an author wrote it, and the slug it is found by."""

    blog = models.ForeignKey(Blog, on_delete=models.CASCADE, related_name="tags", db_index=False)
    name = models.CharField(max_length=TAG_NAME_MAX_LENGTH)
    slug = models.SlugField(max_length=TAG_SLUG_MAX_LENGTH, db_index=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.UniqueConstraint(fields=["blog", "slug"], name="tag_blog_slug_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class Article(models.Model):
    blog = models.ForeignKey(
        Blog,
        on_delete=models.CASCADE,
        related_name="articles",
        db_index=False,  # the (blog, id) indexes below serve every lookup by blog
        help_text="The blog the article belongs to.",
    )
    title = models.CharField(
        max_length=TITLE_MAX_LENGTH, help_text="Required; at most 200 characters."
    )
    content = models.TextField(  # noqa: DJ001 (the contract tells "no content" from "")
        null=True, blank=True, help_text="The article's text. May be left empty."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)
    version = models.PositiveBigIntegerField(
        default=1,
        editable=False,
        help_text="Goes up by one with every change; clients see it in the ETag.",
    )
    locked = models.BooleanField(
        default=False,
        help_text="A locked article cannot be changed or deleted through the API (423) until an "
        "editor unlocks it.",
    )
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Set when the article was deleted; the API then answers 410 Gone for it.",
    )
    slug = models.SlugField(
        max_length=SLUG_MAX_LENGTH,
        blank=True,
        default="",
        db_default="",  # rows written by SQL (seed_bench's COPY) too
        db_index=False,  # the blog's unique constraint serves the lookups
        help_text="The article's readable name in its blog's URLs, unique in the blog; made "
        "from the title when it is published unless given.",
    )
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="When the article was published."
    )
    content_format = models.CharField(
        max_length=10,
        choices=CONTENT_FORMATS,
        default="text",
        db_default="text",  # rows written by SQL (seed_bench's COPY) too
        help_text="How `content` is written: plain text or Markdown (CommonMark).",
    )
    tags = models.ManyToManyField(Tag, blank=True, related_name="articles")

    objects = ArticleQuerySet.as_manager()
    # Revisions (the ArticleRevision model): the state each replace replaced, written by the
    # services through the history manager's bulk_history_create, never by a signal: the writes
    # are UPDATEs that save() and its signals never see (articles.services), and a lock (a save)
    # is no revision. Hard deletes (a blog deleted in the admin) take the revisions along.
    history = RevisionRecords(
        custom_model_name="ArticleRevision",
        verbose_name="revision",
        verbose_name_plural="revisions",
        excluded_fields=["blog", "created_at", "locked", "deleted_at"],
        no_db_index=["id"],
        history_id_field=models.BigAutoField(primary_key=True),
        bases=[RevisionFields],
        cascade_delete_history=True,
    )
    # simple-history's documented switch: no record from save() (see `history`).
    skip_history_when_saving = True

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["blog", "id"], name="article_blog_id_idx"),
            # Pages list live articles by id: an index of exactly those rows lets a deep page
            # skip through the index alone.
            models.Index(
                fields=["blog", "id"],
                name="article_live_blog_id_idx",
                condition=Q(deleted_at__isnull=True),
            ),
            # One per order of `sort` (read forwards or backwards, the id breaking ties), so
            # that a sorted page seeks and reads only itself (articles.pages).
            *(
                models.Index(
                    fields=["blog", column, "id"],
                    name=f"article_live_blog_{name}_idx",
                    condition=Q(deleted_at__isnull=True),
                )
                for column, name in SORT_COLUMNS.items()
            ),
        ]
        constraints = [
            *non_blank_text_constraints("article", "title", TITLE_MAX_LENGTH),
            models.CheckConstraint(condition=Q(version__gte=1), name="article_version_positive"),
            models.UniqueConstraint(
                fields=["blog", "slug"], condition=~Q(slug=""), name="article_blog_slug_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        if not (self.title or "").strip():
            raise ValidationError({"title": "An article needs a title that is not blank."})

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class Comment(models.Model):
    article = models.ForeignKey(
        Article, on_delete=models.CASCADE, related_name="comments", db_index=False
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comments"
    )
    text = models.TextField(help_text="1 to 10,000 characters.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["article", "id"], name="comment_article_id_idx")]
        constraints = non_blank_text_constraints("comment", "text", COMMENT_MAX_LENGTH)

    def __str__(self) -> str:
        return f"{self.author} on {self.article_id}: {self.text[:40]}"

    def clean(self) -> None:
        if not (self.text or "").strip():
            raise ValidationError({"text": "A comment needs some text."})


class ArticleSlug(models.Model):
    """A slug an article had before its current one: `by-slug` still leads there (308)."""

    blog = models.ForeignKey(Blog, on_delete=models.CASCADE, related_name="+", db_index=False)
    slug = models.SlugField(max_length=SLUG_MAX_LENGTH, db_index=False)
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="old_slugs")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blog", "slug"], name="article_old_slug_unique"),
        ]

    def __str__(self) -> str:
        return self.slug


ArticleRevision = Article.history.model
