"""Requests Django cannot read are 400s, with DEBUG on too (`make run`): never Django's technical
page, which shows settings and paths, and never a 500. Sent raw to a real server: the live test
server is the WSGI server `manage.py runserver` uses."""

from __future__ import annotations

import http.client
import json
import socket

import pytest
from lxml import etree

from tests.soap.messages import SOAP12_NS
from tests.support.servers import Response

TECHNICAL_PAGE_MARKS = (b"Traceback", b"settings", b"DJANGO_SETTINGS_MODULE", b"/work/", b".py")
MANY_PARAMS = "&".join(f"p{n}=1" for n in range(1001))


@pytest.fixture(params=[True, False], ids=["DEBUG on", "DEBUG off"])
def server(request, live_server, settings, blog) -> int:
    settings.DEBUG = request.param
    return live_server.thread.port


def send(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Response:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host="Host" in headers)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body or None)
        reply = connection.getresponse()
        return Response(reply.status, reply.headers, reply.read())
    finally:
        connection.close()


def assert_plain_400(reply: Response) -> dict:
    assert reply.status == 400, reply.body[:300]
    for mark in TECHNICAL_PAGE_MARKS:
        assert mark not in reply.body, mark
    return json.loads(reply.body)


@pytest.mark.parametrize(
    "path", ["/api/v1.2/blogs/{blog}/articles", "/graphql", "/admin/login/", "/soap/calculator"]
)
def test_more_than_1000_query_parameters_is_400(server, blog, path):
    reply = send(server, "GET", f"{path.format(blog=blog.pk)}?{MANY_PARAMS}", {})
    if path.startswith("/soap/"):
        # Each surface answers in its own language (core.surfaces): SOAP with a Sender fault.
        assert reply.status == 400, reply.body[:300]
        fault = etree.fromstring(reply.body)
        assert fault.find(f".//{{{SOAP12_NS}}}Fault") is not None
        assert b"query parameters" in reply.body
        return
    body = assert_plain_400(reply)
    assert "query parameters" in json.dumps(body)


def test_a_content_length_that_is_not_a_number_on_graphql_is_400(server):
    with socket.create_connection(("127.0.0.1", server), timeout=10) as connection:
        connection.sendall(
            b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 12abc\r\nConnection: close\r\n\r\n{}"
        )
        raw = b""
        while chunk := connection.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), head
    assert json.loads(body) == {"errors": [{"message": "Content-Length is not a number of bytes."}]}


@pytest.mark.parametrize("path", ["/api/v1.2/", "/graphql", "/admin/login/"])
def test_a_host_that_is_not_allowed_is_400_without_the_technical_page(server, path):
    reply = send(server, "GET", path, {"Host": "evil.example"})
    body = assert_plain_400(reply)
    assert "evil.example" not in json.dumps(body)
