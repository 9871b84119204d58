"""What gunicorn and the service write to the log: gunicorn's own lines come out whole, and a
client cannot forge a line."""

from __future__ import annotations

import json
import socket
import time

import pytest

pytestmark = [pytest.mark.postgres, pytest.mark.servers]


def _send_raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(data)
        return connection.recv(4096)


def test_gunicorn_logs_start_up_and_invalid_requests_without_logging_errors(start_server):
    server = start_server(LOG_LEVEL="INFO")
    assert _send_raw(server.port, b"NOT HTTP AT ALL\r\n\r\n").startswith(b"HTTP/1.1 400")
    time.sleep(0.3)
    log = server.log()
    assert "Logging error" not in log
    assert "Booting worker with pid" in log
    assert "Invalid request from ip=127.0.0.1" in log


def test_a_line_break_in_a_path_cannot_forge_a_log_line(start_server, blog):
    server = start_server(LOG_LEVEL="INFO")
    forged = "%0d%0a2026-01-01%2000:00:00,000%20INFO%20config.requests%20FORGED"
    assert server.request("GET", f"/api/v1.2/blogs/{blog.pk}{forged}").status == 404
    time.sleep(0.3)
    lines = server.log().splitlines()
    assert not [line for line in lines if line.startswith("2026-01-01")]
    [logged] = [line for line in lines if "FORGED" in line]
    assert "GET /api/v1.2/blogs/" in logged and "\\r\\n2026-01-01" in logged
    assert " 404 " in logged and "request_id=" in logged


def test_with_log_format_json_every_request_is_one_json_line(start_server, blog):
    server = start_server(LOG_LEVEL="INFO", LOG_FORMAT="json")
    assert server.request("GET", f"/api/v1.2/blogs/{blog.pk}").status == 200
    assert server.request("GET", "/healthz").status == 200
    time.sleep(0.3)
    ours = []
    for line in server.log().splitlines():
        if line.startswith("{"):
            ours.append(json.loads(line))
    # The last two: the server's start-up probes (/healthz) come before them.
    requests = [line["http"] for line in ours if line["logger"] == "config.requests"][-2:]
    assert [(r["method"], r["path"], r["status"]) for r in requests] == [
        ("GET", f"/api/v1.2/blogs/{blog.pk}", 200),
        ("GET", "/healthz", 200),
    ]
    assert all(len(r["request_id"]) == 32 and r["user"] is None for r in requests)
