"""Oversized bodies, query strings and headers are refused with a 4xx, and nothing is written."""

from __future__ import annotations

import json
import socket

import pytest
from django.conf import settings

from articles.models import Article

API = "/api/v1.2"


def test_an_article_body_over_the_limit_is_413_and_not_written(client, blog, alice, token_for):
    body = json.dumps({"title": "big", "content": "x" * settings.MAX_BODY_BYTES})
    response = client.post(
        f"{API}/blogs/{blog.pk}/articles",
        data=body,
        content_type="application/json",
        HTTP_X_ACCESS_TOKEN=token_for(alice),
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("application/problem+json")
    assert not Article.objects.exists()


def test_a_soap_body_over_its_limit_is_413(client, db):
    padding = "<!-- " + "x" * settings.SOAP_MAX_BODY_BYTES + " -->"
    response = client.post(
        "/soap/calculator",
        data=f'<?xml version="1.0"?>{padding}',
        content_type="application/soap+xml; charset=utf-8",
    )
    assert response.status_code == 413


def test_a_graphql_body_over_the_limit_is_a_client_error(client, db):
    document = "{ hello " + " " * settings.MAX_BODY_BYTES + "}"
    response = client.post(
        "/graphql", data=json.dumps({"query": document}), content_type="application/json"
    )
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize(
    "query",
    [
        "pageIndex=" + "9" * 5000,
        "pageSize=" + "1" * 5000,
        "&".join(f"p{n}=1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)),
    ],
    ids=["huge-page-index", "huge-page-size", "too-many-parameters"],
)
def test_an_oversized_query_string_is_a_400(client, blog, query):
    response = client.get(f"{API}/blogs/{blog.pk}/articles?{query}")
    assert response.status_code == 400, response.status_code
    assert response["Content-Type"].startswith("application/problem+json")


def test_a_huge_graphql_document_in_the_query_string_is_refused(client, db):
    document = "{" + " hello" * 6000 + " }"  # 6,002 tokens: over GRAPHQL_MAX_TOKENS
    response = client.get(
        "/graphql", {"query": document}, HTTP_ACCEPT="application/graphql-response+json"
    )
    assert 400 <= response.status_code < 500
    assert "token" in response.json()["errors"][0]["message"].lower()


def test_a_soap_get_uri_over_3000_characters_is_414(client, db):
    response = client.get(
        "/soap/calculator",
        {"FirstValue": "1" * 3000, "SecondValue": "2"},
        HTTP_ACCEPT="application/soap+xml",
    )
    assert response.status_code == 414


# --- Limits only a real server enforces: the request line and the headers -----------------------


def raw_exchange(port: int, request: bytes) -> int:
    """Send raw bytes, return the status code of the answer (0 if the server just closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = sock.recv(4096)
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


@pytest.mark.servers
@pytest.mark.postgres
@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /healthz?" + b"q" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"h" * 9000 + b"\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + b"".join(b"X-H%d: 1\r\n" % n for n in range(150))
        + b"\r\n",
        b"POST /api/v1.2/blogs/1/articles HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{",
    ],
    ids=["request-line", "header-field", "header-count", "declared-body"],
)
def test_gunicorn_and_the_service_refuse_oversized_requests_with_a_4xx(start_server, request_bytes):
    server = start_server(workers=1)
    status = raw_exchange(server.port, request_bytes)
    assert 400 <= status < 500, status
    assert server.request("GET", "/healthz").status == 200


DEEP = 100_000  # far past Python's recursion limit, well under MAX_BODY_BYTES


@pytest.mark.parametrize(
    "body",
    [
        "[" * DEEP + "]" * DEEP,
        '{"title": "deep", "content": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}",
    ],
    ids=["nested-arrays", "nested-objects-in-a-field"],
)
def test_deeply_nested_json_is_a_400_on_the_api_and_nothing_is_written(
    client, blog, alice, token_for, body
):
    response = client.post(
        f"{API}/blogs/{blog.pk}/articles",
        data=body,
        content_type="application/json",
        HTTP_X_ACCESS_TOKEN=token_for(alice),
    )
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert not Article.objects.exists()


def test_deeply_nested_json_variables_are_a_400_on_graphql(client, db):
    body = '{"query": "{ hello }", "variables": ' + "[" * DEEP + "]" * DEEP + "}"
    response = client.post("/graphql", data=body, content_type="application/json")
    assert response.status_code == 400
    assert "errors" in response.json()
