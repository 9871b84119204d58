"""Handing deliveries to the broker after a write's commit (webhooks.outbox) and from the relay
(webhooks.tasks), by task name (core.broker): the outbox needs neither tasks nor services."""

from __future__ import annotations

from django.utils import timezone

from core import broker
from webhooks.models import Delivery


def enqueue(delivery_ids: list[int], *, countdown: float = 0) -> int:
    """Publish a task per delivery; how many reached the broker. Never raises: a broker that is
    down leaves the rows pending, and the relay hands them over once it is back."""
    sent = broker.send(
        "webhooks.deliver",
        [(delivery_id,) for delivery_id in delivery_ids],
        countdown=countdown,
        what="webhook deliveries",
    )
    if sent:
        Delivery.objects.filter(pk__in=delivery_ids[:sent]).update(enqueued_at=timezone.now())
    return sent
