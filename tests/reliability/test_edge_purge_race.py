"""A fetch held open across a write (issue 40, point 2): the edge never keeps, as fresh, an answer
the origin made before a commit that arrives after the commit's purge
(deploy/varnish/blog-service.vcl, its purge clock; docs/decisions/edge-cache.md).

First on the real varnishd against a scripted origin whose answer is made, then held until the
test has purged its key (one edge for these tests); then with the service's own topology
(gunicorn, the Celery worker's purges, Varnish, with a held link between Varnish and gunicorn)
across a write and a delete.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from articles import services
from tests.reliability import test_edge
from tests.reliability.test_edge import Edge, article_path, assert_visible, contains, pending_purges
from tests.reliability.test_edge_vcl import public
from tests.support.edge import INSTALL, Answer, ScriptedOrigin, Varnish, hit, varnishd_binary
from tests.support.load import write_headers
from tests.support.servers import Response
from tests.support.tcpproxy import FaultProxy
from tests.support.webhooks import wait_until

pytestmark = [pytest.mark.servers]

STAYS_FOR = 1.5  # seconds a change, once visible through the edge, is read again
start_edge = test_edge.start_edge  # the fixture, for this module's test too


@pytest.fixture(scope="module")
def edge() -> Iterator[tuple[ScriptedOrigin, Varnish]]:
    """One scripted origin and one varnishd for this module's VCL tests (each its own path and
    keys)."""
    if varnishd_binary() is None:
        pytest.skip(f"varnishd is not installed: {INSTALL}")
    with ScriptedOrigin() as origin, Varnish(origin_port=origin.port) as varnish:
        yield origin, varnish


def body(reply: Response) -> bytes:
    return reply.body.strip()


def held_across_a_purge(
    origin: ScriptedOrigin, varnish: Varnish, path: str, key: str, *, after: Callable[[], object]
) -> bytes:
    """Fetch `path` through the edge while its origin answer (made at version 1) is held; then
    version 2 and a purge of `key`, `after()` (still held), and the answer released; the held
    read's body."""
    released = threading.Event()
    headers = origin.answers[path].headers
    origin.version = 1
    origin.answer(path, Answer(headers=headers, held=released))
    fetches = origin.fetches()[path]
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(varnish.request, "GET", path)
        wait_until(lambda: origin.fetches()[path] > fetches, timeout=10, what="the held fetch")
        origin.version = 2  # a write commits...
        assert varnish.purge(key).status == 200  # ...and its purge reaches the edge
        after()
        origin.answer(path, Answer(headers=headers))
        released.set()
        return body(held.result(timeout=30))


def test_an_answer_made_before_a_purge_and_stored_after_it_is_not_served(edge):
    origin, varnish = edge
    origin.answer("/cold", Answer(headers=public(keys="article:41 site")))
    waiting: list = []
    with ThreadPoolExecutor(1) as pool:

        def a_reader_after_the_purge() -> None:
            # Asks after the purge, while the fetch is on its way: it waits for that fetch.
            waiting.append(pool.submit(varnish.request, "GET", "/cold"))
            time.sleep(0.2)

        old = held_across_a_purge(
            origin, varnish, "/cold", "article:41", after=a_reader_after_the_purge
        )
        reader = waiting[0].result(timeout=30)

    # The read that asked before the write gets what was true when it asked; none after.
    assert old == b"/cold v1"
    assert body(reader) == b"/cold v2"
    assert body(varnish.request("GET", "/cold")) == b"/cold v2"
    # A fetch begun after the purge is kept as ever.
    assert hit(varnish.request("GET", "/cold"))


def test_a_refresh_in_the_background_held_across_a_purge_is_not_served(edge):
    origin, varnish = edge
    origin.answer("/swr", Answer(headers=public(s_maxage=1, swr=30, keys="article:42 site")))
    origin.version = 1
    assert body(varnish.request("GET", "/swr")) == b"/swr v1"
    time.sleep(1.5)  # past s-maxage, within stale-while-revalidate

    def a_stale_read() -> None:
        # Answered at once from the expired copy; its refresh is the held fetch.
        assert body(varnish.request("GET", "/swr")) == b"/swr v1"

    released = threading.Event()
    origin.answer("/swr", Answer(headers=origin.answers["/swr"].headers, held=released))
    a_stale_read()
    wait_until(lambda: origin.fetches()["/swr"] == 2, timeout=10, what="the background refresh")
    origin.version = 2
    assert varnish.purge("article:42").status == 200
    origin.answer("/swr", Answer(headers=public(s_maxage=1, swr=30, keys="article:42 site")))
    released.set()

    assert body(varnish.request("GET", "/swr")) == b"/swr v2"


def test_a_copy_expired_before_a_purge_is_not_served_while_revalidating(edge):
    """A soft purge passes over a copy already expired, which stale-while-revalidate would
    serve to the first reader after the write: a copy expired before the last purge is fetched
    anew in the foreground instead."""
    origin, varnish = edge
    origin.answer("/expired", Answer(headers=public(s_maxage=1, swr=30, keys="article:44 site")))
    origin.version = 1
    assert body(varnish.request("GET", "/expired")) == b"/expired v1"
    time.sleep(1.5)  # past s-maxage, within stale-while-revalidate

    origin.version = 2
    assert varnish.purge("article:44").headers["xkey-purged"] == "0"  # passed over
    reply = varnish.request("GET", "/expired")

    assert (body(reply), reply.headers["X-Cache"]) == (b"/expired v2", "MISS")


def test_an_answer_stored_stale_still_answers_while_the_origin_fails(edge):
    """Stored stale, not dropped: like a soft-purged copy, stale-if-error still has it."""
    origin, varnish = edge
    origin.answer("/failing", Answer(headers=public(keys="article:43 site")))
    old = held_across_a_purge(origin, varnish, "/failing", "article:43", after=lambda: None)
    assert old == b"/failing v1"

    origin.answer("/failing", Answer(503, {"Cache-Control": "no-store"}, b"db down"))
    reply = varnish.request("GET", "/failing")

    assert (reply.status, body(reply)) == (200, b"/failing v1")


# --- the service's topology --------------------------------------------------------------------


def stays(edge: Edge, path: str, seen: Callable[[Response], bool], what: str) -> None:
    """Every read of `path` through the edge for STAYS_FOR seconds satisfies `seen`."""
    deadline = time.monotonic() + STAYS_FOR
    while time.monotonic() < deadline:
        reply = edge.get(path)
        assert seen(reply), (what, reply.status, reply.headers.get("X-Cache"), reply.body[:200])
        time.sleep(0.05)


def read_across(edge: Edge, link: FaultProxy, path: str, write: Callable[[], Response]):
    """A read of `path` through the edge whose answer, made by gunicorn before `write()`, reaches
    Varnish after the write's purge did (the outbox empty); (the read, the write's answer)."""
    link.hold()
    try:
        with ThreadPoolExecutor(1) as pool:
            held = pool.submit(edge.get, path)
            wait_until(lambda: link.held_bytes > 0, timeout=10, what="the origin's answer")
            written = write()
            wait_until(lambda: pending_purges() == 0, timeout=10, what="the write's purge")
            link.release()
            return held.result(timeout=30), written
    finally:
        link.release()


@pytest.mark.postgres
def test_a_read_held_across_a_write_and_a_delete_leaves_no_old_copy_at_the_edge(
    start_edge, blog, article, alice, token_for
):
    with FaultProxy("127.0.0.1", 1) as link:  # pointed at gunicorn once it runs
        edge = start_edge(purges=True, origin_via=link)
        token = token_for(alice)
        path = article_path(article)

        title = f"Written during a read {uuid.uuid4().hex[:8]}"
        old, written = read_across(
            edge,
            link,
            path,
            lambda: edge.server.request(
                "PUT", path, body={"title": title}, headers=write_headers(token)
            ),
        )
        assert written.status == 200, written.body[:300]
        assert old.status == 200 and old.json()["title"] == article.title  # made before it
        assert_visible(edge, path, contains(title), "a write during a read")
        stays(edge, path, contains(title), "a write during a read")

        doomed = services.article_create(blog=blog, title="Deleted during a read")
        path = article_path(doomed)
        old, deleted = read_across(
            edge,
            link,
            path,
            lambda: edge.server.request("DELETE", path, headers=write_headers(token)),
        )
        assert deleted.status == 204, deleted.body[:300]
        assert old.status == 200, old.body[:300]
        assert_visible(edge, path, lambda reply: reply.status == 410, "a delete during a read")
        stays(edge, path, lambda reply: reply.status == 410, "a delete during a read")
