"""Reads of webhooks: a blog's page of subscriptions, a subscription's pages of deliveries."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from core.paging import Page
from webhooks.models import Attempt, Delivery, Subscription


def _page(rows: QuerySet, order: tuple[str, ...], page_index: int, page_size: int) -> Page[Any]:
    total = rows.count()
    start = (page_index - 1) * page_size
    items = list(rows.order_by(*order)[start : start + page_size]) if start < total else []
    return Page(items, total, page_index, page_size)


def subscription_page(blog_id: int, page_index: int, page_size: int) -> Page[Subscription]:
    return _page(Subscription.objects.filter(blog_id=blog_id), ("id",), page_index, page_size)


def delivery_page(subscription: Subscription, page_index: int, page_size: int) -> Page[Delivery]:
    """Newest first, each with its attempts (oldest first) and its event."""
    rows = (
        Delivery.objects.filter(subscription=subscription)
        .select_related("event")
        .prefetch_related(
            Prefetch("attempts", queryset=Attempt.objects.order_by("started_at", "id"))
        )
    )
    page = _page(rows, ("-created_at", "-id"), page_index, page_size)
    for delivery in page.items:
        delivery.subscription = subscription
    return page
