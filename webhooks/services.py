"""Every write to webhooks: subscriptions (REST and admin) and deliveries (the task, the relay)."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from blogs.models import Blog
from webhooks import sender, signing
from webhooks.models import RESPONSE_EXCERPT_BYTES, Attempt, Delivery, Event, Subscription
from webhooks.publishing import enqueue
from webhooks.validation import validate_events, validate_target_url

PREVIOUS_SECRET_VALID = timedelta(hours=24)
# Longer delays are left to the relay: a message waiting that long in Redis would be handed to a
# second worker after the broker's visibility timeout anyway.
COUNTDOWN_MAX_SECONDS = 15 * 60


class DeliveryNotFailed(Exception):
    """Only a failed delivery can be sent again."""


class SubscriptionDisabled(Exception):
    """A disabled subscription is sent nothing, not even a redelivery."""


class SubscriptionLimitReached(Exception):
    """The blog has WEBHOOK_MAX_PER_BLOG subscriptions already."""


@transaction.atomic
def subscription_create(
    *,
    blog: Blog,
    url: str,
    events: list[str],
    active: bool = True,
    created_by: AbstractBaseUser | None = None,
) -> tuple[Subscription, str]:
    """The new subscription and its secret, shown to its author this once. The blog's row lock
    keeps the WEBHOOK_MAX_PER_BLOG cap exact under racing creates (decisions/webhook-limits.md)."""
    Blog.objects.select_for_update(no_key=True).filter(pk=blog.pk).exists()
    limit = settings.WEBHOOK_MAX_PER_BLOG
    if Subscription.objects.filter(blog_id=blog.pk).count() >= limit:
        raise SubscriptionLimitReached(
            f"The blog has {limit} webhooks, as many as it may; delete one first."
        )
    secret = signing.secret_generate()
    subscription = Subscription(
        blog=blog,
        url=validate_target_url(url),
        events=validate_events(events),
        active=active,
        secret=secret,
        created_by=created_by,
    )
    subscription.full_clean(exclude=["blog", "url", "events"])
    subscription.save(force_insert=True)
    return subscription, secret


@transaction.atomic
def subscription_update(
    *,
    subscription: Subscription,
    url: str | None = None,
    events: list[str] | None = None,
    active: bool | None = None,
) -> Subscription:
    """Change what was given. Turning a subscription on again forgets why it was turned off."""
    if url is not None:
        subscription.url = validate_target_url(url)
    if events is not None:
        subscription.events = validate_events(events)
    if active is not None and active != subscription.active:
        subscription.active = active
        if active:
            subscription.disabled_reason, subscription.disabled_at = "", None
            subscription.failing_since = None
        else:
            subscription.disabled_reason = "Turned off by its author."
            subscription.disabled_at = timezone.now()
    subscription.updated_at = timezone.now()
    subscription.save()
    return subscription


@transaction.atomic
def subscription_delete(*, subscription: Subscription) -> None:
    subscription.delete()


@transaction.atomic
def subscription_rotate_secret(*, subscription: Subscription) -> tuple[Subscription, str]:
    """A new secret, shown once; the previous one stays valid (both signatures are sent) for
    24 hours, so that the receiver can switch without losing a message."""
    now = timezone.now()
    current = Subscription.objects.select_for_update().get(pk=subscription.pk)
    current.previous_secret, current.secret = current.secret, signing.secret_generate()
    current.previous_secret_expires_at = now + PREVIOUS_SECRET_VALID
    current.updated_at = now
    current.save()
    return current, current.secret


def _claim(delivery_id: int, now: datetime) -> Delivery | None:
    """Take the due, pending delivery for one attempt, or None when it is not due, already done,
    or being sent by another worker (a duplicate task)."""
    # Resolving, connecting and answering each have the timeout; the lease outlasts all three.
    lease = timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS * 3 + 5)
    claimed = (
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING)
        # A second of slack: the worker's clock may be a little behind the writer's.
        .filter(next_attempt_at__lte=now + timedelta(seconds=1))
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))
        .update(leased_until=now + lease)
    )
    if not claimed:
        return None
    return Delivery.objects.select_related("event", "subscription").get(pk=delivery_id)


def message_headers(delivery: Delivery, *, body: bytes, at: datetime) -> dict[str, str]:
    timestamp = int(at.timestamp())
    return {
        "webhook-id": delivery.event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signing.signature_header(
            delivery.subscription.signing_secrets(at),
            message_id=delivery.event_id,
            timestamp=timestamp,
            body=body,
        ),
    }


def message_body(delivery: Delivery) -> bytes:
    return json.dumps(delivery.event.body, separators=(",", ":"), ensure_ascii=False).encode()


def backoff_seconds(attempt_count: int) -> float:
    """base * 2^(n-1), capped, then a random point in its upper half (jitter), so that the
    deliveries that failed together do not all come back together."""
    delay = min(
        settings.WEBHOOK_RETRY_MAX_SECONDS,
        settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** max(attempt_count - 1, 0),
    )
    return random.uniform(delay / 2, delay)


def delivery_attempt(*, delivery_id: int) -> Attempt | None:
    """One attempt of a delivery, as the task makes it; None when there was nothing to do.
    Claim, POST with no transaction open, record (decisions/webhooks-outbox.md)."""
    now = timezone.now()
    delivery = _claim(delivery_id, now)
    if delivery is None:
        return None
    subscription = delivery.subscription
    if not subscription.active:
        return _record(delivery, _ended("The subscription is disabled."), now)
    if now > delivery.retry_until:
        return _record(delivery, _ended("Retried for as long as allowed."), now)
    body = message_body(delivery)
    try:
        outcome = sender.post(
            subscription.url, body=body, headers=message_headers(delivery, body=body, at=now)
        )
    except BaseException:
        # Cut short: the worker's stop cancelled the task (SystemExit in the pool process,
        # docs/decisions/clean-stops.md). The lease is given back, so that the message the
        # broker hands out again is sent at once rather than after the lease.
        Delivery.objects.filter(
            pk=delivery.pk, status=Delivery.Status.PENDING, leased_until=delivery.leased_until
        ).update(leased_until=None)
        raise
    return _record(delivery, outcome, now)


def _ended(reason: str) -> sender.Outcome:
    return sender.Outcome(None, 0, error=reason, refused=True)


@transaction.atomic
def _record(delivery: Delivery, outcome: sender.Outcome, started_at: datetime) -> Attempt:
    now = timezone.now()
    attempt = Attempt.objects.create(
        delivery=delivery,
        started_at=started_at,
        duration_ms=outcome.duration_ms,
        status_code=outcome.status_code,
        response_excerpt=outcome.response_excerpt[:RESPONSE_EXCERPT_BYTES].decode(
            "utf-8", "replace"
        ),
        error=outcome.error,
        succeeded=outcome.succeeded,
    )
    delivery.attempt_count += 1
    delivery.leased_until = None
    if outcome.succeeded:
        delivery.status, delivery.completed_at, delivery.last_error = "succeeded", now, ""
    else:
        delivery.last_error = outcome.error or f"HTTP {outcome.status_code}"
        delay = backoff_seconds(delivery.attempt_count)
        if outcome.retry_after_seconds is not None:
            delay = max(delay, outcome.retry_after_seconds)
        next_at = now + timedelta(seconds=delay)
        if outcome.retryable and next_at <= delivery.retry_until:
            delivery.next_attempt_at, delivery.enqueued_at = next_at, None
            if delay <= COUNTDOWN_MAX_SECONDS:
                transaction.on_commit(partial(enqueue, [delivery.pk], countdown=delay))
        else:
            delivery.status, delivery.completed_at = "failed", now
    delivery.save(
        update_fields=[
            "attempt_count",
            "leased_until",
            "status",
            "completed_at",
            "last_error",
            "next_attempt_at",
            "enqueued_at",
        ]
    )
    _subscription_health(delivery.subscription, attempt, now)
    return attempt


def _subscription_health(subscription: Subscription, attempt: Attempt, now: datetime) -> None:
    """A success clears the failing streak; a subscription whose attempts have all failed for
    WEBHOOK_DISABLE_AFTER_HOURS is turned off, with the reason its author reads."""
    rows = Subscription.objects.filter(pk=subscription.pk)
    if attempt.succeeded:
        rows.exclude(failing_since=None).update(failing_since=None)
        return
    rows.filter(failing_since=None).update(failing_since=now)
    limit = now - timedelta(hours=settings.WEBHOOK_DISABLE_AFTER_HOURS)
    failing_since = rows.values_list("failing_since", flat=True).first()
    if failing_since is not None and failing_since <= limit:
        cause = attempt.error or f"HTTP {attempt.status_code}"
        rows.filter(active=True).update(
            active=False,
            disabled_at=now,
            updated_at=now,
            disabled_reason=(
                f"Every delivery since {failing_since:%Y-%m-%d %H:%M} UTC failed (over"
                f" {settings.WEBHOOK_DISABLE_AFTER_HOURS} hours); the last: {cause}"
            ),
        )


@transaction.atomic
def delivery_redeliver(*, delivery: Delivery) -> Delivery:
    """Send a failed delivery again, with the same webhook-id and a new retry period."""
    current = (
        Delivery.objects.select_for_update().select_related("subscription").get(pk=delivery.pk)
    )
    if current.status != Delivery.Status.FAILED:
        raise DeliveryNotFailed(f"The delivery is {current.status}, not failed.")
    if not current.subscription.active:
        raise SubscriptionDisabled("The webhook is disabled; turn it on first.")
    now = timezone.now()
    current.status = Delivery.Status.PENDING
    current.next_attempt_at = now
    current.retry_until = now + timedelta(hours=settings.WEBHOOK_RETRY_HOURS)
    current.completed_at = current.enqueued_at = current.leased_until = None
    current.save()
    transaction.on_commit(partial(enqueue, [current.pk]))
    return current


def deliveries_to_relay(*, limit: int = 500) -> list[int]:
    """Due pending deliveries no worker holds, never handed to the broker or handed over long
    enough ago to count as lost (a killed worker, a broker restarted without its queue)."""
    now = timezone.now()
    grace = timedelta(seconds=settings.WEBHOOK_RELAY_SECONDS)
    requeue_before = now - timedelta(seconds=settings.WEBHOOK_REQUEUE_AFTER_SECONDS)
    return list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now - grace)
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lte=requeue_before))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )


@transaction.atomic
def events_purge(*, limit: int = 1000) -> int:
    """Forget events older than WEBHOOK_KEEP_DAYS whose deliveries are all over (their deliveries
    and attempts go with them), a batch at a time; how many events were deleted."""
    before = timezone.now() - timedelta(days=settings.WEBHOOK_KEEP_DAYS)
    ids = list(
        Event.objects.filter(created_at__lt=before)
        .exclude(deliveries__status=Delivery.Status.PENDING)
        .values_list("pk", flat=True)[:limit]
    )
    Event.objects.filter(pk__in=ids).delete()
    return len(ids)
