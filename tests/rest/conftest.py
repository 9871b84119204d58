"""Helpers for the REST tests: an HTTP client that speaks HAL, and the write helpers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client

API = "/api/v1.2"


class HalClient(Client):
    """Django's test client with the API's headers spelled out, as a real client sends them."""

    def write(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ):
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["X-Access-Token"] = token
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        if body is None:
            data = b""
        return getattr(self, method.lower())(
            path, data=data, content_type=content_type, headers=all_headers
        )


@pytest.fixture
def api() -> HalClient:
    return HalClient()


@pytest.fixture
def alice_token(alice, token_for) -> str:
    return token_for(alice)


def body(response) -> dict[str, Any]:
    return json.loads(response.content)


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked `postgres` need PostgreSQL; on SQLite they are skipped, with the reason."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (DATABASE_URL)")
    for item in items:
        if item.get_closest_marker("postgres"):
            item.add_marker(skip)
