"""The webhook routes of the REST surface, mounted by config/urls.py beside the articles'."""

from __future__ import annotations

from django.urls import path

from webhooks.api.views import (
    DeliveryListView,
    DeliveryView,
    RedeliverView,
    RotateSecretView,
    WebhookListView,
    WebhookView,
)

_WEBHOOK = "blogs/<int:blog_id>/webhooks/<int:webhook_id>"
_DELIVERY = f"{_WEBHOOK}/deliveries/<int:delivery_id>"

urlpatterns = [
    path("blogs/<int:blog_id>/webhooks", WebhookListView.as_view(), name="webhooks"),
    path(_WEBHOOK, WebhookView.as_view(), name="webhook"),
    path(f"{_WEBHOOK}/rotate-secret", RotateSecretView.as_view(), name="webhook-rotate-secret"),
    path(f"{_WEBHOOK}/deliveries", DeliveryListView.as_view(), name="deliveries"),
    path(_DELIVERY, DeliveryView.as_view(), name="delivery"),
    path(f"{_DELIVERY}/redeliver", RedeliverView.as_view(), name="delivery-redeliver"),
]
