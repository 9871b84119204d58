"""A body that ends before its Content-Length (the client closed the connection mid-body) is
refused and never applied (RFC 9112 6.3), on gunicorn and on Django's development server.

Each body is a whole document in itself: without the rule, the server would read those bytes,
reach the end of the stream, and parse and apply them as if they were the body declared.
"""

from __future__ import annotations

import json
import socket

import pytest

from articles.models import Article
from tests.support.load import API

DECLARED = 100
ENVELOPE = (
    b'<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>'
    b'<AddValues xmlns="http://tempuri.org/"><FirstValue>2</FirstValue>'
    b"<SecondValue>3</SecondValue></AddValues></env:Body></env:Envelope>"
)


def article_body() -> bytes:
    body = b'{"title": "cut", "content": "short"}    '
    assert len(body) == 40 and json.loads(body)
    return body


def send_cut(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """Sends `body` under a Content-Length DECLARED bytes longer than the body (at least), then
    closes the sending side: (status, the whole answer), status None when the server closed
    the connection without answering."""
    declared = max(DECLARED, len(body) + 60)
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}"
        f"Content-Length: {declared}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    answer = received.decode("utf-8", "replace")
    if not answer:
        return None, ""
    return int(answer.split(" ", 2)[1]), answer


def post_cut_article(port: int, blog_id: int, token: str) -> tuple[int | None, str]:
    return send_cut(
        port,
        f"{API}/blogs/{blog_id}/articles",
        article_body(),
        {
            "Content-Type": "application/json",
            "Accept": "application/hal+json",
            "X-Access-Token": token,
        },
    )


def assert_refused_with_a_problem(status: int | None, answer: str) -> None:
    assert status == 400, answer[:500]
    assert "Content-Type: application/problem+json" in answer
    assert "ended before its Content-Length" in answer


def test_the_development_server_refuses_a_cut_article_body(live_port, blog, alice, token_for):
    status, answer = post_cut_article(live_port, blog.pk, token_for(alice))

    assert_refused_with_a_problem(status, answer)
    assert not Article.objects.exists()


def test_the_whole_body_is_still_applied(live_port, blog, alice, token_for):
    """The same request with its whole body: the rule refuses only what was cut."""
    body = article_body()
    head = (
        f"POST {API}/blogs/{blog.pk}/articles HTTP/1.1\r\nHost: 127.0.0.1:{live_port}\r\n"
        f"Content-Type: application/json\r\nX-Access-Token: {token_for(alice)}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", live_port), timeout=30) as connection:
        connection.sendall(head.encode() + body)
        answer = connection.makefile("rb").readline()

    assert answer.startswith(b"HTTP/1.1 201")
    assert Article.objects.get().title == "cut"


def test_a_cut_graphql_body_is_a_request_error(live_port, db):
    body = b'{"query": "{ hello }"}'
    status, answer = send_cut(
        live_port,
        "/graphql",
        body,
        {"Content-Type": "application/json", "Accept": "application/graphql-response+json"},
    )

    assert status == 400, answer[:500]
    document = json.loads(answer.split("\r\n\r\n", 1)[1])
    assert "ended before its Content-Length" in document["errors"][0]["message"]
    assert "data" not in document


@pytest.mark.parametrize(
    ("content_type", "status", "code"),
    [
        ("application/soap+xml; charset=utf-8", 400, "Sender"),
        ("text/xml; charset=utf-8", 500, "Client"),
    ],
)
def test_a_cut_soap_envelope_is_a_sender_fault(live_port, db, settings, content_type, status, code):
    envelope = ENVELOPE.replace(b"http://tempuri.org/", settings.SOAP_NAMESPACE.encode())
    if content_type.startswith("text/xml"):
        envelope = envelope.replace(
            b"http://www.w3.org/2003/05/soap-envelope", b"http://schemas.xmlsoap.org/soap/envelope/"
        )
    headers = {"Content-Type": content_type}
    if content_type.startswith("text/xml"):
        headers["SOAPAction"] = f'"{settings.SOAP_NAMESPACE}/AddValuesMessage"'

    answered, answer = send_cut(live_port, "/soap/calculator", envelope, headers)

    assert answered == status, answer[:500]
    assert f":{code}<" in answer
    assert "ended before its Content-Length" in answer
    assert "<Result>" not in answer


@pytest.mark.postgres
@pytest.mark.servers
def test_gunicorn_refuses_a_cut_article_body(start_server, blog, alice, token_for):
    server = start_server()

    status, answer = post_cut_article(server.port, blog.pk, token_for(alice))

    # gunicorn may answer the refusal, or close the connection it can no longer read from.
    if status is not None:
        assert_refused_with_a_problem(status, answer)
    assert not Article.objects.exists()
    # The server is still serving.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert connection.makefile("rb").readline().startswith(b"HTTP/1.1 200")
