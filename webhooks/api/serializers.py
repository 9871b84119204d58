"""The webhook resources' shapes: a subscription, a delivery with its attempts, and the input."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from rest_framework import serializers

from articles.api.serializers import StrictCharField
from rest.links import api_url, link, page_template, relation_links, templated_link
from webhooks.models import URL_MAX_LENGTH, Attempt, Delivery, Subscription


class StrictBooleanField(serializers.BooleanField):
    """true or false, and nothing else (DRF's BooleanField takes "yes", 1, "on" ...)."""

    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


class SubscriptionInputSerializer(serializers.Serializer):
    """POST and PATCH bodies; the values themselves are checked by webhooks.validation."""

    url = StrictCharField(max_length=URL_MAX_LENGTH)
    events = serializers.ListField(child=StrictCharField(), allow_empty=False)
    active = StrictBooleanField(required=False)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _webhook_url(request: HttpRequest, subscription: Subscription) -> str:
    return api_url(request, "webhook", blog_id=subscription.blog_id, webhook_id=subscription.pk)


def _deliveries_url(request: HttpRequest, subscription: Subscription) -> str:
    return api_url(request, "deliveries", blog_id=subscription.blog_id, webhook_id=subscription.pk)


WEBHOOK_RELATIONS = {
    "self": lambda request, s: link(_webhook_url(request, s)),
    "doc:blog": lambda request, s: link(api_url(request, "blog", blog_id=s.blog_id)),
    "doc:deliveries": lambda request, s: templated_link(page_template(_deliveries_url(request, s))),
    "doc:rotateSecret": lambda request, s: link(
        api_url(request, "webhook-rotate-secret", blog_id=s.blog_id, webhook_id=s.pk)
    ),
}


def webhook_representation(
    request: HttpRequest, subscription: Subscription, *, secret: str | None = None
) -> dict[str, Any]:
    """A subscription; `secret` only in the answer that created or rotated it (shown once)."""
    data: dict[str, Any] = {
        "id": subscription.pk,
        "url": subscription.url,
        "events": list(subscription.events),
        "active": subscription.active,
        "disabledReason": subscription.disabled_reason or None,
        "disabledAt": _iso(subscription.disabled_at),
        "createdAt": _iso(subscription.created_at),
        # After a rotation, until when messages are signed with the previous secret too.
        "previousSecretExpiresAt": _iso(
            subscription.previous_secret_expires_at if subscription.previous_secret else None
        ),
    }
    if secret is not None:
        data["secret"] = secret
    data["_links"] = relation_links(request, subscription, WEBHOOK_RELATIONS)
    return data


def attempt_representation(attempt: Attempt) -> dict[str, Any]:
    return {
        "at": _iso(attempt.started_at),
        "succeeded": attempt.succeeded,
        "statusCode": attempt.status_code,
        "durationMs": attempt.duration_ms,
        "response": attempt.response_excerpt,
        "error": attempt.error or None,
    }


def _delivery_url(request: HttpRequest, delivery: Delivery) -> str:
    return api_url(
        request,
        "delivery",
        blog_id=delivery.subscription.blog_id,
        webhook_id=delivery.subscription_id,
        delivery_id=delivery.pk,
    )


def _redeliver_link(request: HttpRequest, delivery: Delivery) -> dict[str, Any] | None:
    if delivery.status != Delivery.Status.FAILED:
        return None
    return link(_delivery_url(request, delivery) + "/redeliver")


DELIVERY_RELATIONS = {
    "self": lambda request, d: link(_delivery_url(request, d)),
    "doc:webhook": lambda request, d: link(_webhook_url(request, d.subscription)),
    "doc:redeliver": _redeliver_link,
}


def delivery_representation(request: HttpRequest, delivery: Delivery) -> dict[str, Any]:
    pending = delivery.status == Delivery.Status.PENDING
    return {
        "id": delivery.pk,
        "eventId": delivery.event_id,
        "eventType": delivery.event.type,
        "status": delivery.status,
        "createdAt": _iso(delivery.created_at),
        "nextAttemptAt": _iso(delivery.next_attempt_at) if pending else None,
        "retryUntil": _iso(delivery.retry_until),
        "completedAt": _iso(delivery.completed_at),
        "attemptCount": delivery.attempt_count,
        "lastError": delivery.last_error or None,
        "attempts": [attempt_representation(a) for a in delivery.attempts.all()],
        "_links": relation_links(request, delivery, DELIVERY_RELATIONS),
    }
