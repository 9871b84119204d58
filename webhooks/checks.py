"""System checks (`manage.py check`, and every `migrate`): settings webhooks cannot work with."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Error, register
from django.http.request import validate_host


@register("webhooks")
def public_url_is_served(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """The links of every message are built on WEBHOOK_PUBLIC_URL: a host this service does not
    serve would make every write to a blog with webhooks fail (DisallowedHost)."""
    parts = urlsplit(settings.WEBHOOK_PUBLIC_URL)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return [
            Error(
                f"WEBHOOK_PUBLIC_URL must be an absolute http(s) URL, not"
                f" {settings.WEBHOOK_PUBLIC_URL!r}.",
                id="webhooks.E001",
            )
        ]
    if not validate_host(parts.hostname, settings.ALLOWED_HOSTS):
        return [
            Error(
                f"The host of WEBHOOK_PUBLIC_URL ({parts.hostname}) is not in ALLOWED_HOSTS.",
                hint="Set WEBHOOK_PUBLIC_URL to the origin clients reach the API at.",
                id="webhooks.E002",
            )
        ]
    return []
