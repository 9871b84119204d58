"""LOG_FORMAT=json: one JSON object per request line, with the request's fields, for log
shippers; a client's control characters cannot break the line."""

from __future__ import annotations

import json
import logging

import pytest

from core.logs import JsonFormatter
from tests.rest.conftest import API


@pytest.fixture
def json_logs(settings, caplog):
    settings.LOG_FORMAT = "json"
    caplog.set_level(logging.INFO, logger="config.requests")
    return caplog


def request_lines(caplog) -> list[dict]:
    formatter = JsonFormatter()
    lines = [formatter.format(r) for r in caplog.records if r.name == "config.requests"]
    assert all("\n" not in line for line in lines)
    return [json.loads(line) for line in lines]


def test_a_write_is_one_json_line_with_method_path_status_duration_id_and_user(
    client, json_logs, blog, alice, token_for
):
    response = client.post(
        f"{API}/blogs/{blog.pk}/articles",
        data=json.dumps({"title": "Logged"}),
        content_type="application/json",
        headers={"X-Access-Token": token_for(alice), "X-Request-ID": "trace-42"},
    )
    assert response.status_code == 201

    [line] = request_lines(json_logs)
    assert line["level"] == "INFO" and line["logger"] == "config.requests"
    http = line["http"]
    assert {k: http[k] for k in ("method", "path", "status", "request_id", "user")} == {
        "method": "POST",
        "path": f"{API}/blogs/{blog.pk}/articles",
        "status": 201,
        "request_id": "trace-42",
        "user": "alice",
    }
    assert isinstance(http["duration_ms"], float) and http["duration_ms"] >= 0


def test_an_anonymous_read_has_no_user_and_a_forged_line_stays_inside_its_string(
    client, json_logs, blog
):
    client.get(f"{API}/blogs/{blog.pk}%0d%0aFORGED")

    [line] = request_lines(json_logs)
    assert line["http"]["user"] is None
    assert line["http"]["status"] == 404
    assert line["http"]["path"].endswith("\r\nFORGED")


def test_the_text_format_is_the_default_and_carries_no_fields(client, caplog, blog):
    caplog.set_level(logging.INFO, logger="config.requests")
    client.get(f"{API}/blogs/{blog.pk}")
    [record] = [r for r in caplog.records if r.name == "config.requests"]
    assert not hasattr(record, "http")
    assert "request_id=" in record.getMessage()
