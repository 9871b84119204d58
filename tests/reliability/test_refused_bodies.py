"""A body the service refuses is still answered: 413 with its problem for an over-size body (the
client is still sending when the answer is decided), 411 for a chunked one, on gunicorn and on
Django's development server (which `make run` serves)."""

from __future__ import annotations

import http.client

import pytest

from articles.models import Article
from tests.support.load import API, post_chunked, write_headers

EIGHT_MIB = b"x" * (8 * 1024 * 1024)
OVERSIZE = [
    (f"{API}/blogs/1/articles", "application/json", "application/problem+json"),
    ("/graphql", "application/json", "application/json"),
    ("/soap/calculator", "application/soap+xml; charset=utf-8", "application/soap+xml"),
]


def _post_on_one_connection(
    port: int, path: str, content_type: str
) -> list[tuple[int, str, bytes]]:
    """The over-size POST, then a GET on the same connection: what each got."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", path, body=EIGHT_MIB, headers={"Content-Type": content_type})
        refused = connection.getresponse()
        answers = [(refused.status, refused.getheader("Content-Type", ""), refused.read())]
        if refused.getheader("Connection", "").lower() != "close":
            connection.request("GET", "/healthz")
            health = connection.getresponse()
            answers.append((health.status, health.getheader("Content-Type", ""), health.read()))
        return answers
    finally:
        connection.close()


@pytest.mark.parametrize(("path", "content_type", "answer_type"), OVERSIZE)
def test_the_development_server_answers_an_8_mib_body_with_413(
    live_port, path, content_type, answer_type
):
    [(status, media_type, body), *_] = _post_on_one_connection(live_port, path, content_type)
    assert status == 413
    assert media_type.startswith(answer_type)
    assert b"larger" in body or b"too large" in body.lower()


@pytest.mark.postgres
@pytest.mark.servers
@pytest.mark.parametrize(("path", "content_type", "answer_type"), OVERSIZE)
def test_gunicorn_answers_an_8_mib_body_with_413_and_keeps_its_word_on_keep_alive(
    start_server, path, content_type, answer_type
):
    server = start_server()
    answers = _post_on_one_connection(server.port, path, content_type)
    status, media_type, _ = answers[0]
    assert (status, media_type.split(";")[0]) == (413, answer_type)
    # Announced keep-alive: the connection serves the next request.
    assert len(answers) == 2 and answers[1][0] == 200


@pytest.mark.postgres
@pytest.mark.servers
def test_a_chunked_body_without_content_length_is_411_not_a_wrong_422(
    start_server, blog, alice, token_for
):
    server = start_server()
    reply = post_chunked(
        server.port,
        f"{API}/blogs/{blog.pk}/articles",
        [b'{"title": ', b'"Sent in chunks"}'],
        {**write_headers(token_for(alice)), "Content-Type": "application/json"},
    )
    problem = reply.json()
    assert reply.status == 411
    assert reply.headers["Content-Type"] == "application/problem+json"
    assert problem["status"] == 411 and "Content-Length" in problem["detail"]
    assert not Article.objects.exists()
