from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.db.models.functions import Length, Trim
from django.db.models.lookups import GreaterThan, LessThanOrEqual
from django.utils import timezone

from core import representations

TITLE_MAX_LENGTH = 200


def non_blank_text_constraints(model: str, field: str, max_length: int) -> list:
    """Database checks that `field` is not blank and at most `max_length` characters long, for
    the writers the model's validation misses (raw SQL, bulk updates; SQLite ignores varchar)."""
    return [
        models.CheckConstraint(
            condition=GreaterThan(Length(Trim(field)), 0), name=f"{model}_{field}_not_blank"
        ),
        models.CheckConstraint(
            condition=LessThanOrEqual(Length(field), max_length),
            name=f"{model}_{field}_max_length",
        ),
    ]


class Blog(models.Model):
    title = models.CharField(
        max_length=TITLE_MAX_LENGTH,
        help_text="Shown to readers as the blog's name and in every article's link to its blog.",
    )
    description = models.TextField(
        blank=True, help_text="A sentence or two telling readers what the blog is about."
    )
    authors = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="blogs",
        help_text="People who may write, replace and delete this blog's articles through the API.",
    )
    archived = models.BooleanField(
        default=False,
        help_text="An archived blog is read-only: the API refuses every new, changed or deleted "
        "article in it (409), while readers still see everything.",
    )
    article_count = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="Articles in the blog, kept exact with every create and delete.",
    )
    revision = models.PositiveBigIntegerField(
        default=1,
        editable=False,
        help_text="Changes whenever the blog or any of its articles changes.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(
        default=timezone.now,
        editable=False,
        help_text="When the blog or any of its articles last changed.",
    )

    class Meta:
        ordering = ["id"]
        constraints = non_blank_text_constraints("blog", "title", TITLE_MAX_LENGTH)

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:
        """Save an edit of the blog itself as a new revision (its ETag).

        `article_count` and `revision` are counters the article services move with UPDATEs in
        other transactions; an edit writes neither from this (possibly stale) instance: the
        revision is bumped in the database and both are read back.
        """
        if self._state.adding:
            # A new blog is in the blog list: its generation renewed after the insert commits,
            # as for an edit below.
            with transaction.atomic(savepoint=False):
                representations.changed([representations.blogs_generation()])
                super().save(*args, **kwargs)
            return
        fields = kwargs.pop("update_fields", None)
        if fields is None:
            fields = {field.name for field in self._meta.concrete_fields if not field.primary_key}
        self.revision = F("revision") + 1
        self.updated_at = timezone.now()
        fields = (set(fields) - {"article_count"}) | {"revision", "updated_at"}
        # In a transaction even when called outside one: the representations' generations are
        # renewed (and the primary's WAL position read for them) after the write commits.
        with transaction.atomic(savepoint=False):
            representations.blog_changed(blog_id=self.pk)
            super().save(*args, update_fields=fields, **kwargs)
        self.refresh_from_db(fields=["article_count", "revision"])

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        with transaction.atomic(savepoint=False):
            representations.blog_changed(blog_id=self.pk)
            return super().delete(*args, **kwargs)

    def clean(self) -> None:
        if not self.title.strip():
            raise ValidationError({"title": "A blog needs a title."})

    def is_author(self, user) -> bool:
        known = getattr(self, "_authorship", None)
        if known is not None and known[0] == user.pk:
            return known[1]
        return self.authors.filter(pk=user.pk).exists()

    def remember_authorship(self, user, is_author: bool) -> None:
        """Record what is_author(user) answers, read with the blog in the same query
        (`authorship(...)`), so that the check costs no query of its own."""
        self._authorship = (user.pk, is_author)

    @staticmethod
    def authorship(user, blog_id_field: str = "pk") -> models.Exists:
        """An expression: whether `user` is an author of the blog whose id is `blog_id_field`
        of the queried model (an annotation for remember_authorship)."""
        return models.Exists(
            Blog.authors.through.objects.filter(
                blog_id=models.OuterRef(blog_id_field), user_id=user.pk
            )
        )


TOKEN_PREFIX_LENGTH = 8


def hash_token(token: str) -> str:
    # One SHA-256 round: a 256-bit random token leaves nothing for a slow hash to protect.
    return hashlib.sha256(token.encode()).hexdigest()


class AccessTokenQuerySet(models.QuerySet):
    def active(self) -> AccessTokenQuerySet:
        unexpired = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        return self.filter(unexpired, revoked=False)

    def matching(self, token: str) -> AccessToken | None:
        """The active token whose secret is `token`, compared in constant time, or None."""
        candidates = self.active().select_related("user").filter(prefix=token[:TOKEN_PREFIX_LENGTH])
        expected = hash_token(token)
        return next((c for c in candidates if hmac.compare_digest(c.token_hash, expected)), None)


class AccessToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="access_tokens",
        help_text="Whoever holds the token writes as this person.",
    )
    name = models.CharField(
        max_length=100,
        help_text="What the token is for, e.g. 'laptop' or 'CI'; also accepted by revoke_token.",
    )
    prefix = models.CharField(
        max_length=TOKEN_PREFIX_LENGTH,
        editable=False,
        db_index=True,
        help_text="The token's first characters, to recognise it without storing it.",
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="After this moment the token is refused. Empty: never."
    )
    revoked = models.BooleanField(
        default=False, help_text="A revoked token is refused at once and for good."
    )
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="Last write made with it (to the minute)."
    )

    objects = AccessTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(revoked=False) | Q(revoked_at__isnull=False),
                name="accesstoken_revoked_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def generate() -> str:
        # Never a leading "-": the prefix is typed as an argument of revoke_token, where it
        # would read as an option (one token in 64 would be refused).
        token = secrets.token_urlsafe(32)
        while token.startswith("-"):
            token = secrets.token_urlsafe(32)
        return token
