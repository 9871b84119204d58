"""Reads of webhooks: a blog's page of subscriptions, a subscription's pages of deliveries."""

from __future__ import annotations

from django.db.models import Prefetch

from core.paging import Page
from webhooks.models import Attempt, Delivery, Subscription


def subscription_page(*, blog_id: int, page_index: int, page_size: int) -> Page[Subscription]:
    rows = Subscription.objects.filter(blog_id=blog_id)
    total = rows.count()
    start = (page_index - 1) * page_size
    items = list(rows.order_by("id")[start : start + page_size]) if start < total else []
    return Page(items, total, page_index, page_size)


def delivery_page(*, subscription: Subscription, page_index: int, page_size: int) -> Page[Delivery]:
    """Newest first, each with its attempts (oldest first) and its event."""
    rows = Delivery.objects.filter(subscription=subscription)
    total = rows.count()
    start = (page_index - 1) * page_size
    items = (
        list(
            rows.select_related("event")
            .prefetch_related(
                Prefetch("attempts", queryset=Attempt.objects.order_by("started_at", "id"))
            )
            .order_by("-created_at", "-id")[start : start + page_size]
        )
        if start < total
        else []
    )
    for delivery in items:
        delivery.subscription = subscription
    return Page(items, total, page_index, page_size)
