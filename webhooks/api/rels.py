"""The pages of the webhooks' link relations (/docs/rels/{rel}), which the `doc` curie names."""

from __future__ import annotations

from rest.docs import AUTHORS_ONLY, PAGE, Operation, Relation

_WEBHOOK = (
    '{"id": 4, "url": "https://...", "events": ["article.created"] or ["*"], "active": true, '
    '"disabledReason": null or why, "disabledAt", "createdAt", "previousSecretExpiresAt", '
    '"_links": {"curies", "self", "doc:blog", "doc:deliveries", "doc:rotateSecret"}}'
)
_DELIVERY = (
    '{"id": 9, "eventId": "evt_...", "eventType": "article.created", "status": "pending" | '
    '"succeeded" | "failed", "attemptCount", "nextAttemptAt", "retryUntil", "completedAt", '
    '"lastError", "attempts": [{"at", "succeeded", "statusCode", "durationMs", "response", '
    '"error"}], "_links": {"curies", "self", "doc:webhook", "doc:redeliver" (when failed)}}'
)

RELATIONS = {
    "webhooks": Relation(
        "Webhooks",
        "A blog's webhooks, paged, oldest first. Templated: {?pageIndex,pageSize}. "
        + AUTHORS_ONLY
        + " docs/webhooks.md describes the messages and how to verify their signatures.",
        (
            Operation("GET", "A page of webhooks.", "", PAGE.replace("{total}", "totalWebhooks")),
            Operation(
                "POST",
                "Subscribe (201, Location); the answer carries the signing secret, shown once.",
                '{"url": "https://...", "events": ["article.created", ...] or ["*"], '
                '"active": true (optional)}',
                _WEBHOOK.replace('"id": 4,', '"id": 4, "secret": "whsec_...",'),
            ),
        ),
    ),
    "webhook": Relation(
        "Webhook",
        "One webhook subscription. " + AUTHORS_ONLY,
        (
            Operation("GET", "The webhook (never its secret).", "", _WEBHOOK),
            Operation("PATCH", "Change url, events or active.", '{"active": true}', _WEBHOOK),
            Operation("DELETE", "Delete it and its deliveries (204)."),
        ),
    ),
    "rotateSecret": Relation(
        "Rotate the secret",
        "A new signing secret, shown once; the previous one signs too for 24 hours. "
        + AUTHORS_ONLY,
        (Operation("POST", "Rotate (200, with the new secret).", "", _WEBHOOK),),
    ),
    "deliveries": Relation(
        "Deliveries",
        "A webhook's deliveries, newest first, with every attempt. Templated:"
        " {?pageIndex,pageSize}. " + AUTHORS_ONLY,
        (
            Operation(
                "GET", "A page of deliveries.", "", PAGE.replace("{total}", "totalDeliveries")
            ),
        ),
    ),
    "redeliver": Relation(
        "Redeliver",
        "Send a failed delivery again, with the same webhook-id. " + AUTHORS_ONLY,
        (
            Operation(
                "POST", "202 with the delivery, pending again; 409 unless it failed.", "", _DELIVERY
            ),
        ),
    ),
}
