"""What a subscription may hold, checked by the service for every surface (REST and admin)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError

from webhooks.models import ALL_EVENTS, EVENT_TYPES, URL_MAX_LENGTH

_NOT_IN_URL = frozenset(' \t\r\n\\<>"{}|^`')


def validate_target_url(url: Any) -> str:
    if not isinstance(url, str) or not url:
        raise ValidationError({"url": ["Must be an http or https URL."]})
    if len(url) > URL_MAX_LENGTH:
        raise ValidationError({"url": [f"Must be at most {URL_MAX_LENGTH} characters."]})
    # Not Django's URLValidator: it refuses one-label hosts (http://receiver:8080/), which a
    # service next to this one in a private network has.
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError:
        raise ValidationError({"url": ["Must be an absolute http or https URL."]}) from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or _NOT_IN_URL.intersection(url)
        or not url.isascii()
    ):
        raise ValidationError({"url": ["Must be an absolute http or https URL."]})
    if parts.username is not None:
        # Credentials in the URL would be shown in every list of the subscription.
        raise ValidationError({"url": ["Must not carry a user name or password."]})
    return url


def validate_events(events: Any) -> list[str]:
    if not isinstance(events, list) or not events:
        raise ValidationError({"events": ['Must be a non-empty list of event types, or ["*"].']})
    unknown = [
        e for e in events if not isinstance(e, str) or (e not in EVENT_TYPES and e != ALL_EVENTS)
    ]
    if unknown:
        raise ValidationError(
            {
                "events": [
                    f"Unknown event type {e!r}; the types are {', '.join(EVENT_TYPES)}, or *."
                    for e in unknown
                ]
            }
        )
    return [e for e in (ALL_EVENTS, *EVENT_TYPES) if e in events]
