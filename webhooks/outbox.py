"""The transactional outbox (docs/decisions/webhooks-outbox.md): the event and its deliveries are
written in the announcing write's transaction, handed to the broker after its commit."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit
from wsgiref.util import setup_testing_defaults

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from blogs.models import Blog
from webhooks.models import Delivery, Event, Subscription
from webhooks.publishing import enqueue


def public_request() -> HttpRequest:
    """A request on WEBHOOK_PUBLIC_URL, the service's origin as integrators reach it: the links of
    a message's data are built from it as the API builds them from the request it answers."""
    parts = urlsplit(settings.WEBHOOK_PUBLIC_URL)
    environ = {"SERVER_NAME": parts.hostname, "HTTP_HOST": parts.netloc}
    environ["wsgi.url_scheme"] = parts.scheme
    if parts.port:
        environ["SERVER_PORT"] = str(parts.port)
    setup_testing_defaults(environ)  # the rest of a GET's environ: the scheme's port, no body
    return WSGIRequest(environ)


def announce(
    *, blog: Blog, event_type: str, data: Callable[[HttpRequest], dict[str, Any]]
) -> Event | None:
    """Record `event_type` for the blog's subscriptions that want it, in the caller's transaction.
    `data(request)`, the resource's HAL representation, is built only when someone subscribed; a
    blog read with `webhooks_wanted` (models.webhook_subscribers) and none costs no query."""
    if getattr(blog, "webhooks_wanted", None) is False:
        return None
    subscriptions = Subscription.objects.filter(blog_id=blog.pk).wanting(event_type)
    if not subscriptions:
        return None
    now = timezone.now()
    event = Event.objects.create(
        blog_id=blog.pk,
        type=event_type,
        created_at=now,
        body={
            "type": event_type,
            "timestamp": now.isoformat().replace("+00:00", "Z"),
            "data": data(public_request()),
        },
    )
    retry_until = now + timedelta(hours=settings.WEBHOOK_RETRY_HOURS)
    deliveries = Delivery.objects.bulk_create(
        Delivery(
            event=event,
            subscription=subscription,
            created_at=now,
            next_attempt_at=now,
            retry_until=retry_until,
        )
        for subscription in subscriptions
    )
    ids = [delivery.pk for delivery in deliveries]
    transaction.on_commit(lambda: enqueue(ids))
    return event
