"""The webhook resources' shapes: a subscription, a delivery with its attempts, and the input."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.core.validators import RegexValidator
from django.http import HttpRequest
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from rest.fields import StrictCharField
from rest.links import HalSerializer, LinksField, api_url, link, page_template, templated_link
from rest.paging import page_serializer
from webhooks.models import EVENT_TYPES, URL_MAX_LENGTH, Delivery, Subscription


class StrictBooleanField(serializers.BooleanField):
    """true or false, and nothing else (DRF's BooleanField takes "yes", 1, "on" ...)."""

    default_error_messages = {"not_a_boolean": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("not_a_boolean")
        return data


@extend_schema_serializer(
    description="`url` (http or https) and `events`; `active` defaults to true. A PATCH sends"
    " only the fields it changes."
)
class SubscriptionInputSerializer(serializers.Serializer):
    """POST and PATCH bodies; the values themselves are checked by webhooks.validation."""

    url = StrictCharField(max_length=URL_MAX_LENGTH)
    events = serializers.ListField(child=StrictCharField(), allow_empty=False)
    active = StrictBooleanField(required=False)


class NullableTextField(serializers.CharField):
    """Text that the contract shows as null when there is none (the model keeps "")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, required=False, **kwargs)

    def to_representation(self, value: str) -> str | None:
        return value or None


def _time(source: str, **kwargs: Any) -> serializers.DateTimeField:
    kwargs.setdefault("required", False)
    return serializers.DateTimeField(source=source, default_timezone=UTC, **kwargs)


def _webhook_url(request: HttpRequest, subscription: Subscription) -> str:
    return api_url(request, "webhook", blog_id=subscription.blog_id, webhook_id=subscription.pk)


# Output serializers, as in articles.api.serializers: `required` is what the schema promises.


class WebhookSerializer(HalSerializer):
    id = serializers.IntegerField()
    url = serializers.URLField(max_length=URL_MAX_LENGTH)
    events = serializers.ListField(child=serializers.ChoiceField(choices=["*", *EVENT_TYPES]))
    active = serializers.BooleanField()
    disabledReason = NullableTextField(
        source="disabled_reason",
        help_text="Why the webhook was turned off (by its author, or by the service after every"
        " delivery failed for a long time); null while active.",
    )
    disabledAt = _time("disabled_at", allow_null=True)
    createdAt = _time("created_at")
    previousSecretExpiresAt = _time(
        "previous_secret_expires_at",
        allow_null=True,
        help_text="After a rotation: until when messages carry a second signature, made with"
        " the previous secret.",
    )
    _links = LinksField(
        {
            "self": lambda request, s: link(_webhook_url(request, s)),
            "doc:blog": lambda request, s: link(api_url(request, "blog", blog_id=s.blog_id)),
            "doc:deliveries": lambda request, s: templated_link(
                page_template(api_url(request, "deliveries", blog_id=s.blog_id, webhook_id=s.pk))
            ),
            "doc:rotateSecret": lambda request, s: link(
                api_url(request, "webhook-rotate-secret", blog_id=s.blog_id, webhook_id=s.pk)
            ),
        }
    )

    def to_representation(self, instance: Subscription) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not instance.previous_secret:
            data["previousSecretExpiresAt"] = None
        return data


class WebhookWithSecretSerializer(WebhookSerializer):
    """The answer that created or rotated the secret: the only one that shows it."""

    secret = serializers.CharField(
        validators=[RegexValidator("^whsec_")],
        help_text="The signing secret, shown only in this answer.",
    )


class DeliveryAttemptSerializer(HalSerializer):
    at = _time("started_at", required=True)
    succeeded = serializers.BooleanField()
    statusCode = serializers.IntegerField(source="status_code", allow_null=True, required=False)
    durationMs = serializers.IntegerField(source="duration_ms", min_value=0)
    response = serializers.CharField(
        source="response_excerpt", required=False, help_text="The first bytes of the answer."
    )
    error = NullableTextField()


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


class DeliverySerializer(HalSerializer):
    id = serializers.IntegerField()
    eventId = serializers.CharField(source="event_id", help_text="The message's `webhook-id`.")
    eventType = serializers.ChoiceField(source="event.type", choices=EVENT_TYPES)
    status = serializers.ChoiceField(choices=Delivery.Status.values)
    createdAt = _time("created_at")
    nextAttemptAt = _time("next_attempt_at", allow_null=True)
    retryUntil = _time("retry_until")
    completedAt = _time("completed_at", allow_null=True)
    attemptCount = serializers.IntegerField(source="attempt_count", min_value=0, required=False)
    lastError = NullableTextField(source="last_error")
    attempts = DeliveryAttemptSerializer(many=True)
    _links = LinksField(
        {
            "self": lambda request, d: link(_delivery_url(request, d)),
            "doc:webhook": lambda request, d: link(_webhook_url(request, d.subscription)),
            "doc:redeliver": _redeliver_link,
        },
        optional=("doc:redeliver",),
    )

    def to_representation(self, instance: Delivery) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.status != Delivery.Status.PENDING:
            data["nextAttemptAt"] = None
        return data


WebhookPageSerializer = page_serializer(
    "WebhookPage", WebhookSerializer, "totalWebhooks", lambda member: member["url"]
)
DeliveryPageSerializer = page_serializer(
    "DeliveryPage",
    DeliverySerializer,
    "totalDeliveries",
    lambda member: f"{member['eventType']} {member['eventId']}: {member['status']}",
)
