"""The production topology, nginx (deploy/nginx/blog-service.conf) in front of gunicorn: slow
clients cost nginx a connection, not a gunicorn thread; each client keeps its own address (the
admin's login lockout); the longest redirect the service sends reaches the client."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from articles import services
from tests.support.admin import EDITOR_PASSWORD, AdminBrowser
from tests.support.load import API, post_chunked, write_headers
from tests.support.nginx import INSTALL, Nginx, nginx_binary
from tests.support.servers import http_request

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

SLOW_CLIENTS = 20


@pytest.fixture
def behind_nginx(start_server) -> Iterator[tuple[Nginx, object]]:
    if nginx_binary() is None:
        pytest.skip(f"nginx is not installed: {INSTALL}")
    server = start_server(BEHIND_TRUSTED_PROXY="true")
    with Nginx(upstream_port=server.port) as nginx:
        yield nginx, server


@contextlib.contextmanager
def slow_header_clients(port: int, count: int = SLOW_CLIENTS) -> Iterator[None]:
    """`count` connections that each send a request line, then one header line every 0.5 s."""
    stop = threading.Event()
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]

    def trickle(connection: socket.socket) -> None:
        with contextlib.suppress(OSError):
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while not stop.wait(0.5):
                connection.sendall(b"X-Slow: yes\r\n")

    threads = [threading.Thread(target=trickle, args=(s,), daemon=True) for s in sockets]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # every slow connection is open and has started its request
    try:
        yield
    finally:
        stop.set()
        for connection in sockets:
            connection.close()
        for thread in threads:
            thread.join(timeout=2)


def answered_within(port: int, path: str, seconds: float) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds)
    started = time.monotonic()
    try:
        connection.request("GET", path)
        reply = connection.getresponse()
        reply.read()
        return reply.status == 200 and time.monotonic() - started < seconds
    except OSError:
        return False
    finally:
        connection.close()


def test_behind_nginx_slow_header_clients_leave_health_and_reads_answering(behind_nginx, blog):
    nginx, _ = behind_nginx
    article = services.article_create(blog=blog, title="Read while others dawdle")
    article_path = f"{API}/blogs/{blog.pk}/articles/{article.pk}"
    # Each path a few times before (every worker): what is measured is the slow clients'
    # effect, not a worker's first request (lazy imports, the first database connection).
    for path in ("/healthz", article_path) * 4:
        assert answered_within(nginx.port, path, 10.0)
    with slow_header_clients(nginx.port):
        for _ in range(5):
            assert answered_within(nginx.port, "/healthz", 1.0)
            assert answered_within(nginx.port, article_path, 1.0)


def test_behind_nginx_links_name_the_proxy_and_a_chunked_body_arrives_whole(
    behind_nginx, blog, alice, token_for
):
    nginx, _ = behind_nginx
    reply = post_chunked(
        nginx.port,
        f"{API}/blogs/{blog.pk}/articles",
        [b'{"title": ', b'"Sent in chunks"}'],
        {**write_headers(token_for(alice)), "Content-Type": "application/json"},
    )
    created = reply.json()
    assert reply.status == 201
    assert created["title"] == "Sent in chunks"
    assert created["_links"]["self"]["href"].startswith(f"http://127.0.0.1:{nginx.port}/")


# 99999 is refused whatever ALLOWED_PORTS says (the servers here allow any port).
@pytest.mark.parametrize("host", ["127.0.0.1:99999", "evil.example", "evil.example:8000"])
def test_behind_nginx_a_refused_host_is_never_echoed(start_server, host):
    """nginx passes the client's Host on (as Host and X-Forwarded-Host); the 400 must not carry it
    back, its problem `type` included (docs/decisions/hosts-and-ports.md)."""
    if nginx_binary() is None:
        pytest.skip(f"nginx is not installed: {INSTALL}")
    server = start_server(BEHIND_TRUSTED_PROXY="true", PUBLIC_URL="https://blog.example.org")
    with Nginx(upstream_port=server.port) as nginx:
        reply = http_request(nginx.port, "GET", f"{API}/", headers={"Host": host})
        served = http_request(nginx.port, "GET", f"{API}/")
    assert reply.status == 400
    assert reply.json()["type"] == "https://blog.example.org/docs/problems/bad-request"
    refused = ":99999" if host.startswith("127.") else "evil"
    assert refused.encode() not in reply.body
    assert served.status == 200
    assert f"http://127.0.0.1:{nginx.port}/" in served.body.decode()


# Issue 24: requests that were 500s on the production path (PostgreSQL "bigint out of range" and
# "tsquery stack too small"; bytes that are not UTF-8 accepted as q). Each with its answer now.
HOSTILE_SEARCHES = [
    ("q=demo&pageIndex=999999999999999999&pageSize=100", 200),
    ("q=" + "-" * 33 + "word", 200),
    ("q=" + "-%20" * 40 + "demo", 200),
    ("q=%ff%fe", 400),
]


def test_behind_nginx_hostile_searches_are_pages_or_400s_and_log_no_fault(behind_nginx, blog):
    nginx, server = behind_nginx
    services.article_create(blog=blog, title="A demo", content="of the search")
    document = {
        "query": f"query ($q: String) {{ blog(id: {blog.pk}) {{ articles(q: $q) {{ count }} }} }}",
        "variables": {"q": "-" * 33 + "demo"},
    }

    for page in (f"{API}/blogs/{blog.pk}/articles", f"{API}/articles"):
        for query, status in HOSTILE_SEARCHES:
            reply = http_request(nginx.port, "GET", f"{page}?{query}")
            assert reply.status == status, (page, query, reply.status, reply.body[:300])
            if status == 400:
                assert reply.headers["Content-Type"] == "application/problem+json"
                assert list(reply.json()["errors"]) == ["q"]
    reply = http_request(nginx.port, "POST", "/graphql", body=document)
    assert reply.status == 200, reply.body[:300]
    assert reply.json() == {"data": {"blog": {"articles": {"count": 0}}}}

    log = server.log_path.read_text(errors="replace")
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]


# Two clients on one machine: loopback is all of 127.0.0.0/8, so a socket bound to 127.0.0.2
# reaches nginx from another address than one bound to 127.0.0.1.
FIRST_CLIENT, SECOND_CLIENT = "127.0.0.1", "127.0.0.2"


def test_behind_nginx_a_lockout_locks_out_the_guessing_client_only(behind_nginx, staff_editor):
    nginx, _ = behind_nginx
    guesser = AdminBrowser(nginx.port, FIRST_CLIENT)
    owner = AdminBrowser(nginx.port, SECOND_CLIENT)

    statuses = [guesser.log_in("editor", "guess") for _ in range(settings.AXES_FAILURE_LIMIT)]

    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    assert owner.log_in("editor", EDITOR_PASSWORD) == 302
    assert guesser.log_in("editor", EDITOR_PASSWORD) == 429


def test_behind_nginx_a_client_cannot_name_its_own_address(behind_nginx, staff_editor):
    nginx, _ = behind_nginx
    guesser = AdminBrowser(nginx.port, FIRST_CLIENT)

    # A new made-up address on each attempt, and then the other client's: nginx replaces the
    # header, so every attempt counts against the address the guesser really has.
    statuses = [
        guesser.log_in("editor", "guess", {"X-Forwarded-For": f"198.51.100.{attempt}"})
        for attempt in range(settings.AXES_FAILURE_LIMIT)
    ]

    assert statuses[-1] == 429
    spoofed = {"X-Forwarded-For": SECOND_CLIENT}
    assert guesser.log_in("editor", EDITOR_PASSWORD, spoofed) == 429
    assert AdminBrowser(nginx.port, SECOND_CLIENT).log_in("editor", EDITOR_PASSWORD) == 302


def test_without_a_trusted_proxy_x_forwarded_for_is_the_clients_word_and_ignored(
    start_server, staff_editor
):
    server = start_server()  # BEHIND_TRUSTED_PROXY unset: gunicorn alone, on loopback
    guesser = AdminBrowser(server.port, FIRST_CLIENT)

    statuses = [
        guesser.log_in("editor", "guess", {"X-Forwarded-For": f"198.51.100.{attempt}"})
        for attempt in range(settings.AXES_FAILURE_LIMIT)
    ]

    assert statuses[-1] == 429
    assert guesser.log_in("editor", EDITOR_PASSWORD, {"X-Forwarded-For": SECOND_CLIENT}) == 429
    assert AdminBrowser(server.port, SECOND_CLIENT).log_in("editor", EDITOR_PASSWORD) == 302


# The longest request line gunicorn takes (limit_request_line, config/gunicorn.conf.py), and
# nginx with it (large_client_header_buffers 8k).
LONGEST_REQUEST_LINE = 8190


def longest_target(prefix: str, fill: str) -> str:
    room = LONGEST_REQUEST_LINE - len("GET  HTTP/1.1") - len(prefix)
    return prefix + fill * (room // len(fill))


# (what, request target, status, how the Location starts)
LONG_REDIRECTS = [
    # The slash redirect echoes the query.
    ("api slash", longest_target(f"{API}?q=", "a"), 301, f"{API}/?q=aaa"),
    ("admin slash", longest_target("/admin?q=", "a"), 301, "/admin/?q=aaa"),
    # The admin's login redirect percent-encodes the path and query once more (% is %25).
    ("login next", longest_target("/admin/articles/article/?q=", "%3D"), 302, "/admin/login/"),
    # The longest Location Django sends: 16,384 characters (one more is its 400, below).
    ("longest", "/admin/x" + ":" * ((16384 - len("/admin/login/?next=/admin/x")) // 3), 302, "/"),
]


def test_behind_nginx_the_longest_redirects_reach_the_client(behind_nginx, collected_static):
    nginx, _ = behind_nginx

    for what, target, status, location_starts in LONG_REDIRECTS:
        reply = http_request(nginx.port, "GET", target)

        assert reply.status == status, (what, nginx.error_log().splitlines()[-1][:160])
        assert reply.headers["Location"].startswith(location_starts), what
        assert len(reply.headers["Location"]) >= len(target), what
    assert len(reply.headers["Location"]) > 16384 - 3  # the last: as long as Django sends


def test_behind_nginx_a_redirect_django_will_not_send_is_a_400_not_a_bad_gateway(behind_nginx):
    nginx, _ = behind_nginx

    reply = http_request(nginx.port, "GET", longest_target("/admin/x", ":"))

    assert reply.status == 400
