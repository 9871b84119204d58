"""The webhook resources' JSON Schemas, added to the OpenAPI document's components."""

from __future__ import annotations

from typing import Any

from articles.api.schema import _links, _page, ref
from webhooks.models import EVENT_TYPES, URL_MAX_LENGTH

_TIME = {"type": "string", "format": "date-time"}
_NULLABLE_TIME = {**_TIME, "nullable": True}

WEBHOOK: dict[str, Any] = {
    "type": "object",
    "required": ["id", "url", "events", "active", "_links"],
    "properties": {
        "id": {"type": "integer"},
        "url": {"type": "string", "format": "uri", "maxLength": URL_MAX_LENGTH},
        "events": {
            "type": "array",
            "items": {"type": "string", "enum": ["*", *EVENT_TYPES]},
        },
        "active": {"type": "boolean"},
        "disabledReason": {
            "type": "string",
            "nullable": True,
            "description": "Why the webhook was turned off (by its author, or by the service"
            " after every delivery failed for a long time); null while active.",
        },
        "disabledAt": _NULLABLE_TIME,
        "createdAt": _TIME,
        "previousSecretExpiresAt": {
            **_NULLABLE_TIME,
            "description": "After a rotation: until when messages carry a second signature, made"
            " with the previous secret.",
        },
        "_links": _links("self", "doc:blog", "doc:deliveries", "doc:rotateSecret"),
    },
}

ATTEMPT: dict[str, Any] = {
    "type": "object",
    "required": ["at", "succeeded", "durationMs"],
    "properties": {
        "at": _TIME,
        "succeeded": {"type": "boolean"},
        "statusCode": {"type": "integer", "nullable": True},
        "durationMs": {"type": "integer", "minimum": 0},
        "response": {"type": "string", "description": "The first bytes of the answer."},
        "error": {"type": "string", "nullable": True},
    },
}

DELIVERY: dict[str, Any] = {
    "type": "object",
    "required": ["id", "eventId", "eventType", "status", "attempts", "_links"],
    "properties": {
        "id": {"type": "integer"},
        "eventId": {"type": "string", "description": "The message's `webhook-id`."},
        "eventType": {"type": "string", "enum": list(EVENT_TYPES)},
        "status": {"type": "string", "enum": ["pending", "succeeded", "failed"]},
        "createdAt": _TIME,
        "nextAttemptAt": _NULLABLE_TIME,
        "retryUntil": _TIME,
        "completedAt": _NULLABLE_TIME,
        "attemptCount": {"type": "integer", "minimum": 0},
        "lastError": {"type": "string", "nullable": True},
        "attempts": {"type": "array", "items": ref("DeliveryAttempt")},
        "_links": _links("self", "doc:webhook", optional=("doc:redeliver",)),
    },
}

COMPONENTS: dict[str, Any] = {
    "Webhook": WEBHOOK,
    "WebhookWithSecret": {
        **WEBHOOK,
        "required": [*WEBHOOK["required"], "secret"],
        "properties": {
            **WEBHOOK["properties"],
            "secret": {
                "type": "string",
                "pattern": "^whsec_",
                "description": "The signing secret, shown only in this answer.",
            },
        },
    },
    "WebhookPage": _page("totalWebhooks", "Webhook"),
    "DeliveryAttempt": ATTEMPT,
    "Delivery": DELIVERY,
    "DeliveryPage": _page("totalDeliveries", "Delivery"),
    "SubscriptionInput": {
        "description": "`url` (http or https) and `events`; `active` defaults to true. A PATCH"
        " sends only the fields it changes."
    },
}


def add_webhook_components(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the webhook resources' schemas."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in COMPONENTS.items():
        if name == "SubscriptionInput":
            for generated in ("SubscriptionInput", "PatchedSubscriptionInput"):
                if generated in schemas:
                    schemas[generated]["description"] = schema["description"]
            continue
        schemas[name] = schema
    return result
