"""X-Request-ID on every response, and one log line per request."""

from __future__ import annotations

import logging
import re

import pytest

from tests.rest.conftest import API


def test_a_valid_client_request_id_is_echoed(api, blog):
    response = api.get(f"{API}/blogs/{blog.pk}", headers={"X-Request-ID": "client-id_1.2"})

    assert response["X-Request-ID"] == "client-id_1.2"


@pytest.mark.parametrize("offered", ["", "x" * 129, "has space", "new\nline", "semi;colon", "ü"])
def test_an_invalid_client_request_id_is_replaced_by_a_fresh_one(api, blog, offered):
    response = api.get(f"{API}/blogs/{blog.pk}", headers={"X-Request-ID": offered})

    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


def test_every_response_has_a_request_id_even_errors_and_other_surfaces(api, db):
    responses = [
        api.get(f"{API}/blogs/999"),
        api.generic("TRACE", f"{API}/"),
        api.get("/docs/rels/articles"),
        api.get("/healthz"),
    ]
    ids = [r["X-Request-ID"] for r in responses]
    assert len(set(ids)) == len(ids)


def test_each_request_is_logged_on_one_line(api, blog, caplog):
    with caplog.at_level(logging.INFO, logger="config.requests"):
        api.get(f"{API}/blogs/{blog.pk}", headers={"X-Request-ID": "log-me"})

    lines = [r.getMessage() for r in caplog.records if r.name == "config.requests"]
    assert len(lines) == 1
    assert re.fullmatch(rf"GET {API}/blogs/{blog.pk} 200 \d+\.\dms request_id=log-me", lines[0])
