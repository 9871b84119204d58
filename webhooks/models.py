"""Subscriptions, the outbox of events, one delivery per event and subscription, its attempts."""

from __future__ import annotations

import secrets as random_secrets
from datetime import datetime

from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from blogs.models import Blog

URL_MAX_LENGTH = 2000
RESPONSE_EXCERPT_BYTES = 1024

EVENT_TYPES = (
    "article.created",
    "article.replaced",
    "article.deleted",
    "article.published",
    "comment.created",
    "comment.deleted",
)
ALL_EVENTS = "*"


def new_event_id() -> str:
    """The message's `webhook-id`: unique, opaque, the same on every retry."""
    return f"evt_{random_secrets.token_hex(16)}"


class SubscriptionQuerySet(models.QuerySet):
    def wanting(self, event_type: str) -> list[Subscription]:
        """The active subscriptions that asked for `event_type` (or for every event); filtered in
        Python: the lists are short, and SQLite has no JSON `contains` lookup."""
        return [s for s in self.filter(active=True) if s.wants(event_type)]


class Subscription(models.Model):
    blog = models.ForeignKey(
        Blog,
        on_delete=models.CASCADE,
        related_name="webhooks",
        help_text="The blog whose articles and comments are announced.",
    )
    # A CharField: webhooks.validation checks it (URLField would refuse http://receiver:8080/).
    url = models.CharField(
        max_length=URL_MAX_LENGTH, help_text="Where each message is POSTed (http or https)."
    )
    events = models.JSONField(
        default=list,
        help_text='The event types sent there, e.g. ["article.created"]; ["*"] for every one.',
    )
    active = models.BooleanField(
        default=True,
        help_text="Only active subscriptions receive messages. The service turns a subscription "
        "off by itself when every delivery to it has failed for a long time (see the reason).",
    )
    disabled_reason = models.TextField(
        blank=True, help_text="Why the subscription was turned off; empty while it is active."
    )
    disabled_at = models.DateTimeField(null=True, blank=True, editable=False)
    secret = models.CharField(max_length=100, editable=False)
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    failing_since = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When the first of the deliveries that have all failed since failed.",
    )
    created_by = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, editable=False
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = SubscriptionQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name = "webhook"

    def __str__(self) -> str:
        return f"{self.url} ({self.blog})"

    def wants(self, event_type: str) -> bool:
        return ALL_EVENTS in self.events or event_type in self.events

    def signing_secrets(self, at: datetime) -> list[str]:
        """The secrets a message is signed with at `at`: the current one, and during the 24 hours
        after a rotation the previous one too (Standard Webhooks: several signatures)."""
        expires = self.previous_secret_expires_at
        if self.previous_secret and expires and at < expires:
            return [self.secret, self.previous_secret]
        return [self.secret]


def webhook_subscribers(blog_ref: str) -> Exists:
    """Whether the blog (`blog_ref` of the outer query) has an active subscription: annotated on
    the writes' own blog query, so that a blog without webhooks costs no query (outbox.announce)."""
    return Exists(Subscription.objects.filter(blog_id=OuterRef(blog_ref), active=True))


class Event(models.Model):
    """An outbox row: written in the transaction of the change it announces."""

    id = models.CharField(primary_key=True, max_length=40, default=new_event_id, editable=False)
    blog = models.ForeignKey(Blog, on_delete=models.CASCADE, related_name="webhook_events")
    type = models.CharField(max_length=40, choices=[(t, t) for t in EVENT_TYPES])
    body = models.JSONField(help_text="The message body: {type, timestamp, data}.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        SUCCEEDED = "succeeded", "succeeded"
        FAILED = "failed", "failed"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(
        default=timezone.now, help_text="When the next attempt is due (pending only)."
    )
    retry_until = models.DateTimeField(help_text="No attempt is started after this.")
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="When the due attempt was last handed to the broker."
    )
    leased_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A worker is sending it until then; another may take it over afterwards.",
    )
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="delivery_pending_due",
                condition=Q(status="pending"),
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} -> {self.subscription.url}: {self.status}"


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(
        blank=True, help_text=f"The first {RESPONSE_EXCERPT_BYTES} bytes of the answer."
    )
    error = models.TextField(blank=True, help_text="Why the attempt failed, if it did.")
    succeeded = models.BooleanField(default=False)

    class Meta:
        ordering = ["started_at", "id"]

    def __str__(self) -> str:
        return f"{self.started_at:%Y-%m-%d %H:%M:%S} {self.status_code or self.error}"
