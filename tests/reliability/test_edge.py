"""The service behind the real Varnish with the shipped configuration (issue 28): gunicorn on the
test database, varnishd in front (deploy/varnish/blog-service.vcl, its port replaced), and for
the purges a Celery worker and beat on an own broker, as production runs them.

What is shared and for whom (hit and miss, the variants of one URL kept apart, nothing with
credentials, no error), conditional requests answered at the edge and conditional writes at the
origin, every kind of write visible through the edge within a second, cached reads answering
through a cut to PostgreSQL, purges waiting in the outbox while the edge is away, and the
client's address reaching the rate limits through one proxy or two. `make serve-edge` end to
end. The VCL's own rules against a scripted origin: test_edge_vcl.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.apps import apps

from articles import services
from core.cache_control import ERROR_CACHE_CONTROL
from tests.site.conftest import BROWSER_ACCEPT
from tests.support.admin import EDITOR_PASSWORD, AdminBrowser
from tests.support.edge import INSTALL, Varnish, hit, request_from, varnishd_binary
from tests.support.load import API, is_problem, write_headers
from tests.support.nginx import INSTALL as NGINX_INSTALL
from tests.support.nginx import Nginx, nginx_binary
from tests.support.processes import MakeTarget
from tests.support.servers import BASE_DIR, GunicornServer, Response
from tests.support.tcpproxy import FaultProxy
from tests.support.webhooks import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

VISIBLE_WITHIN = 1.0  # seconds from a write's answer to its change read through the edge
HAL = "application/hal+json"
HAL_FORMS = "application/prs.hal-forms+json"
# The outbox relay in seconds, not minutes: a purge the edge missed is sent again quickly.
EDGE_TEST_SETTINGS = {"EDGE_RELAY_SECONDS": "1", "EDGE_RELAY_AFTER_SECONDS": "1"}


@dataclass
class Edge:
    varnish: Varnish
    server: GunicornServer | None

    def get(self, path: str, **headers: str) -> Response:
        return self.varnish.request("GET", path, headers=headers)

    def write(self, method: str, path: str, token: str, body=None, **headers: str) -> Response:
        return self.varnish.request(
            method, path, body=body, headers=write_headers(token, **headers)
        )


@pytest.fixture
def start_edge(start_server, start_celery, webhook_env) -> Iterator[Callable[..., Edge]]:
    """start_edge(purges=False, database_via=None, purge_via=None, origin_via=None, **env) ->
    gunicorn with BEHIND_TRUSTED_PROXY and EDGE_PURGE_URLS naming the edge (or `purge_via`, a
    FaultProxy in front of it), varnishd in front (fetching through `origin_via`, a FaultProxy
    pointed at gunicorn, when given; its probe directly), and with `purges` a Celery worker and
    beat."""
    if varnishd_binary() is None:
        pytest.skip(f"varnishd is not installed: {INSTALL}")
    started: list[Varnish] = []

    def start(
        *,
        purges: bool = False,
        database_via: FaultProxy | None = None,
        purge_via: FaultProxy | None = None,
        origin_via: FaultProxy | None = None,
        **env: str,
    ) -> Edge:
        varnish = Varnish(origin_port=0)  # its port first: the origin's EDGE_PURGE_URLS names it
        started.append(varnish)
        purge_url = f"http://127.0.0.1:{purge_via.port}" if purge_via else varnish.url
        environment = {
            "BEHIND_TRUSTED_PROXY": "true",
            "EDGE_PURGE_URLS": purge_url,
            **webhook_env,
            **EDGE_TEST_SETTINGS,
            **env,
        }
        server = start_server(database_via=database_via, **environment)
        varnish.origin_port = server.port
        if origin_via:
            origin_via.upstream = ("127.0.0.1", server.port)
            varnish.origin_port, varnish.probe_port = origin_via.port, server.port
        varnish.start()
        if purges:
            start_celery("worker", **environment)
            start_celery("beat", **environment)
        return Edge(varnish, server)

    yield start
    for varnish in started:
        varnish.stop(keep_folder=False)


def article_path(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def twice(edge: Edge, path: str, **headers: str) -> tuple[Response, Response]:
    return edge.get(path, **headers), edge.get(path, **headers)


def visible_within(edge: Edge, path: str, seen: Callable[[Response], bool], **headers: str):
    """Seconds until a read of `path` through the edge satisfies `seen` (reads every 10 ms),
    or None after VISIBLE_WITHIN plus a margin for the assertion's message."""
    started = time.monotonic()
    while time.monotonic() - started < VISIBLE_WITHIN + 2:
        if seen(edge.get(path, **headers)):
            return time.monotonic() - started
        time.sleep(0.01)
    return None


def assert_visible(edge: Edge, path: str, seen: Callable[[Response], bool], what: str) -> None:
    seconds = visible_within(edge, path, seen)
    assert seconds is not None, f"{what}: not visible through the edge after {VISIBLE_WITHIN + 2} s"
    assert seconds <= VISIBLE_WITHIN, f"{what}: visible after {seconds:.2f} s"


def contains(text: str) -> Callable[[Response], bool]:
    return lambda reply: reply.status == 200 and text.encode() in reply.body


# --- what is shared, and for whom --------------------------------------------------------------


@pytest.fixture
def shared_paths(blog, article, alice, collected_static) -> list[str]:
    services.comment_create(article=article, author=alice, text="A first comment")
    return [
        f"{API}/",
        f"{API}/blogs",
        f"{API}/blogs/{blog.pk}",
        f"{API}/blogs/{blog.pk}/articles",
        f"{API}/blogs/{blog.pk}/articles?q=first",
        f"{API}/articles?q=first",
        article_path(article),
        f"{article_path(article)}/comments",
        f"{article_path(article)}/revisions",
        f"{API}/blogs/{blog.pk}/feed",
        "/docs/rels/revisions",
        "/static/site/site.css",
    ]


def test_public_reads_are_fetched_once_then_answered_by_the_edge(start_edge, shared_paths):
    edge = start_edge()
    for path in shared_paths:
        first, second = twice(edge, path)
        assert first.status == 200, (path, first.status, first.body[:300])
        assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("MISS", "HIT"), path
        assert second.body == first.body, path
        assert "public" in first.headers["Cache-Control"], path
        assert "xkey" not in first.headers and "xkey" not in second.headers, path


def test_the_variants_of_one_url_are_never_mixed(start_edge, article):
    edge = start_edge()
    canonical = article_path(article)
    by_media_type = f"{API.replace('/v1.2', '')}/blogs/{article.blog_id}/articles/{article.pk}"
    variants = [
        (canonical, HAL, HAL),
        (canonical, HAL_FORMS, HAL_FORMS),
        (canonical, "text/html", "text/html"),
        (by_media_type, f"{HAL}; version=1.2", HAL),
        (by_media_type, f"{HAL_FORMS}; version=1.2", HAL_FORMS),
    ]

    # Each variant in turn, twice around: every answer is the one its own Accept asked for.
    first = {}
    for round_ in range(2):
        for path, accept, media_type in variants:
            reply = edge.get(path, Accept=accept)
            assert reply.status == 200, (accept, reply.body[:300])
            assert reply.headers["Content-Type"].startswith(media_type), (accept, reply.headers)
            if round_ == 0:
                first[path, accept] = reply.body
            else:
                assert reply.body == first[path, accept], accept
                if media_type != "text/html":
                    assert hit(reply), accept
    hal, forms = first[canonical, HAL], first[canonical, HAL_FORMS]
    assert hal != forms and first[canonical, "text/html"].lstrip().startswith(b"<!")


def test_a_read_with_credentials_is_its_own_and_fills_nothing(
    start_edge, article, alice, token_for, staff_editor
):
    edge = start_edge()
    path = article_path(article)
    token = token_for(alice)
    browser = AdminBrowser(edge.varnish.port)
    assert browser.log_in("editor", EDITOR_PASSWORD) == 302
    session = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())
    credentials = [
        {"X-Access-Token": token},
        {"Authorization": f"Bearer {token}"},
        {"Cookie": session},
        {"Cookie": session, "Accept": "text/html"},  # a signed-in editor's HTML page
    ]

    def own_reads() -> None:
        for headers in credentials:
            for reply in twice(edge, path, **headers):
                assert reply.status < 500, (headers, reply.body[:300])
                assert reply.headers["X-Cache"] == "MISS", headers
                assert "public" not in reply.headers.get("Cache-Control", ""), headers
                assert "xkey" not in reply.headers, headers

    own_reads()
    # They filled nothing: the first read without credentials is still a miss.
    assert [r.headers["X-Cache"] for r in twice(edge, path)] == ["MISS", "HIT"]
    assert edge.get(path, Accept="text/html").headers["X-Cache"] == "MISS"
    # And a copy shared for everyone is never answered to a request with credentials.
    own_reads()


def test_private_surfaces_and_errors_are_never_shared(
    start_edge, blog, article, alice, token_for, collected_static
):
    edge = start_edge()
    token = token_for(alice)
    services.article_delete(article=services.article_create(blog=blog, title="Gone soon"))
    gone = blog.articles.filter(title="Gone soon").values_list("pk", flat=True)
    never = [
        (f"{API}/blogs/{blog.pk}/webhooks", {"X-Access-Token": token}, 200),
        (f"{API}/blogs/{blog.pk}/webhooks", {}, 401),
        ("/metrics", {}, None),
        ("/healthz", {}, 200),
        ("/readyz", {}, 200),
        (f"{API}/blogs/{blog.pk}/articles/{article.pk + 1000}", {}, 404),
        (f"{API}/blogs/{blog.pk + 1000}", {}, 404),
        (f"{API}/blogs/{blog.pk}/articles?pageSize=0", {}, 400),
        (f"{API}/blogs/{blog.pk}", {"Accept": "image/png"}, 406),
        # The site's 404 page for a browser: no copy at the edge nor in the browser.
        ("/nowhere", {"Accept": BROWSER_ACCEPT}, 404),
    ]
    if gone:
        never.append((f"{API}/blogs/{blog.pk}/articles/{gone[0]}", {}, 410))
    for path, headers, status in never:
        first, second = twice(edge, path, **headers)
        if status is not None:
            assert first.status == status, (path, first.status, first.body[:300])
        assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("MISS", "MISS"), path
        assert "public" not in second.headers.get("Cache-Control", ""), path
        if status is not None and status >= 400:
            assert second.headers.get("Cache-Control") == ERROR_CACHE_CONTROL, path


# --- conditional requests ----------------------------------------------------------------------


def test_a_conditional_read_is_answered_at_the_edge_and_a_conditional_write_at_the_origin(
    start_edge, article, alice, token_for
):
    edge = start_edge()
    path = article_path(article)
    first, _ = twice(edge, path)
    etag = first.headers["ETag"]

    not_modified = edge.get(path, **{"If-None-Match": etag})
    by_date = edge.get(path, **{"If-Modified-Since": first.headers["Last-Modified"]})

    assert (not_modified.status, not_modified.headers["X-Cache"]) == (304, "HIT")
    assert not_modified.headers["ETag"] == etag and not_modified.body == b""
    assert (by_date.status, by_date.headers["X-Cache"]) == (304, "HIT")

    token = token_for(alice)
    stale = edge.write("PUT", path, token, {"title": "Lost update"}, **{"If-Match": '"stale"'})
    assert stale.status == 412 and is_problem(stale), stale.body[:300]
    assert stale.headers["X-Cache"] == "MISS"
    kept = edge.get(path)
    assert hit(kept) and kept.body == first.body

    fresh = edge.write("PUT", path, token, {"title": "Kept update"}, **{"If-Match": etag})
    assert fresh.status == 200, fresh.body[:300]
    # The writer reads its own write at once: a request with its token is never answered
    # from the cache.
    own = edge.get(path, **{"X-Access-Token": token})
    assert b"Kept update" in own.body


# --- every kind of write purges what it changed ------------------------------------------------


def test_an_article_post_put_and_delete_are_visible_through_the_edge_within_a_second(
    start_edge, blog, article, alice, token_for
):
    edge = start_edge(purges=True)
    token = token_for(alice)
    page, path = f"{API}/blogs/{blog.pk}/articles", article_path(article)
    for read in (page, path, f"{API}/blogs/{blog.pk}"):
        assert hit(twice(edge, read)[1]), read

    title = f"Posted {uuid.uuid4().hex[:8]}"
    posted = edge.write("POST", page, token, {"title": title, "content": "new"})
    assert posted.status == 201, posted.body[:300]
    assert_visible(edge, page, contains(title), "a new article on its blog's page")

    etag = edge.get(path, **{"X-Access-Token": token}).headers["ETag"]
    title = f"Replaced {uuid.uuid4().hex[:8]}"
    replaced = edge.write("PUT", path, token, {"title": title}, **{"If-Match": etag})
    assert replaced.status == 200, replaced.body[:300]
    assert_visible(edge, path, contains(title), "a replaced article")
    assert_visible(edge, page, contains(title), "a replaced article on its blog's page")

    deleted = edge.write("DELETE", path, token)
    assert deleted.status == 204, deleted.body[:300]
    assert_visible(edge, path, lambda reply: reply.status == 410, "a deleted article")
    assert_visible(edge, page, lambda reply: title.encode() not in reply.body, "its page")


def test_a_new_comment_is_visible_through_the_edge_within_a_second(
    start_edge, article, alice, token_for
):
    edge = start_edge(purges=True)
    comments = f"{article_path(article)}/comments"
    assert hit(twice(edge, comments)[1])

    text = f"Comment {uuid.uuid4().hex[:8]}"
    written = edge.write("POST", comments, token_for(alice), {"text": text})
    assert written.status == 201, written.body[:300]
    assert_visible(edge, comments, contains(text), "a new comment")


def test_a_blog_edited_in_the_admin_is_visible_through_the_edge_within_a_second(
    start_edge, blog, alice, staff_editor
):
    edge = start_edge(purges=True)
    path = f"{API}/blogs/{blog.pk}"
    assert hit(twice(edge, path)[1])
    browser = AdminBrowser(edge.varnish.port)
    assert browser.log_in("editor", EDITOR_PASSWORD) == 302

    title = f"Renamed {uuid.uuid4().hex[:8]}"
    status, page = browser.submit(
        f"/admin/blogs/blog/{blog.pk}/change/",
        {"title": title, "description": blog.description, "authors": [str(alice.pk)]},
    )
    assert status == 302, page[:500]
    assert_visible(edge, path, contains(title), "a blog renamed in the admin")


def test_a_restored_revision_is_visible_through_the_edge_within_a_second(
    start_edge, article, alice, token_for
):
    edge = start_edge(purges=True)
    token = token_for(alice)
    path, revisions = article_path(article), f"{article_path(article)}/revisions"
    etag = edge.get(path, **{"X-Access-Token": token}).headers["ETag"]
    changed = edge.write("PUT", path, token, {"title": "Second thoughts"}, **{"If-Match": etag})
    assert changed.status == 200, changed.body[:300]
    # That write's purge is on its way: once it has reached the edge, what is read next stays.
    wait_until(lambda: pending_purges() == 0, timeout=30, what="the first write's purge")
    for read in (path, revisions):
        assert hit(twice(edge, read)[1]), read
    assert edge.get(path).json()["title"] == "Second thoughts"
    old = edge.get(f"{revisions}/1").json()

    etag = edge.get(path, **{"X-Access-Token": token}).headers["ETag"]
    restored = edge.write(
        "PUT",
        path,
        token,
        {"title": old["title"], "content": old.get("content")},
        **{"If-Match": etag},
    )
    assert restored.status == 200, restored.body[:300]
    assert_visible(
        edge, path, lambda r: r.status == 200 and r.json()["title"] == old["title"], "a restore"
    )
    assert_visible(
        edge,
        revisions,
        lambda r: r.status == 200 and r.json()["totalRevisions"] == 2,
        "the revisions after a restore",
    )


# --- outages -----------------------------------------------------------------------------------


def test_through_a_cut_to_postgresql_cached_reads_answer_and_the_rest_is_503_problems(
    start_edge, pg_proxy, blog, article, other_blog, alice
):
    # Kept one second, then stale, without stale-while-revalidate: what answers during the cut
    # is the edge's stale-if-error.
    edge = start_edge(
        database_via=pg_proxy, EDGE_SHARED_MAX_AGE="1", EDGE_STALE_WHILE_REVALIDATE="0"
    )
    services.comment_create(article=article, author=alice, text="Read before the cut")
    cached = [
        f"{API}/blogs/{blog.pk}",
        f"{article_path(article)}/comments",
        f"{API}/blogs/{blog.pk}/feed",
        article_path(article),
    ]
    before = {path: edge.get(path) for path in cached}
    assert all(reply.status == 200 for reply in before.values())
    time.sleep(1.5)

    with pg_proxy.outage():
        for path in cached:
            for _ in range(3):
                reply = edge.get(path)
                assert reply.status == 200, (path, reply.status, reply.body[:300])
                assert reply.body == before[path].body, path
        # The origin itself cannot answer them (the article excepted: the representation cache
        # in Redis holds it): it was the edge.
        direct = edge.server.request("GET", cached[0])
        assert direct.status == 503, direct.body[:300]
        for path in (f"{API}/blogs", f"{API}/blogs/{other_blog.pk}"):
            reply = edge.get(path)
            assert reply.status == 503 and is_problem(reply), (path, reply.body[:300])
            assert int(reply.headers["Retry-After"]) > 0

    # Back: fresh answers again (the origin's probe sees it within a few seconds).
    assert wait_until(
        lambda: edge.get(f"{API}/blogs").status == 200, timeout=30, what="the origin back"
    )


def pending_purges() -> int:
    return apps.get_model("core", "EdgePurge").objects.count()


def test_a_write_succeeds_while_the_edge_is_down_and_its_purge_waits_until_it_is_back(
    start_edge, blog, article, alice, token_for
):
    edge = start_edge(purges=True)
    token = token_for(alice)
    path = article_path(article)
    edge.varnish.stop()

    written = edge.server.request(
        "PUT", path, body={"title": "Written while the edge was down"}, headers=write_headers(token)
    )
    assert written.status == 200, written.body[:300]
    time.sleep(3)  # the task's first tries and a relay or two: all refused
    assert pending_purges() >= 1

    edge.varnish.start()  # the same port, an empty cache
    wait_until(lambda: pending_purges() == 0, timeout=30, what="the outbox to empty")


def test_a_purge_the_edge_missed_is_sent_again_and_the_change_shows(
    start_edge, article, alice, token_for
):
    """The edge keeps running (and its copy) while the purges cannot reach it: the copy stays
    old exactly as long as the purge waits, and shows the change once it arrives."""
    with FaultProxy("127.0.0.1", 1) as link:  # pointed at the edge once its port is known
        edge = start_edge(purges=True, purge_via=link)
        link.upstream = ("127.0.0.1", edge.varnish.port)
        token = token_for(alice)
        path = article_path(article)
        assert hit(twice(edge, path)[1])

        with link.outage():
            etag = edge.get(path, **{"X-Access-Token": token}).headers["ETag"]
            written = edge.write("PUT", path, token, {"title": "Purged late"}, **{"If-Match": etag})
            assert written.status == 200, written.body[:300]
            time.sleep(3)
            assert b"Purged late" not in edge.get(path).body
            assert pending_purges() >= 1
        wait_until(lambda: b"Purged late" in edge.get(path).body, timeout=30, what="the late purge")
        wait_until(lambda: pending_purges() == 0, timeout=30, what="the outbox to empty")


# --- the client's address ----------------------------------------------------------------------

READ_LIMIT = 5


def read_statuses(port: int, address: str, path: str, count: int) -> list[int]:
    return [request_from(port, address, "GET", path).status for _ in range(count)]


def test_the_origin_counts_each_clients_reads_through_the_edge(start_edge, blog):
    edge = start_edge(RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ=f"{READ_LIMIT}/min")
    cached = f"{API}/blogs/{blog.pk}"
    assert edge.get(cached).status == 200
    missing = f"{API}/blogs/{blog.pk + 1000}"  # never shared: each read reaches the origin

    first = read_statuses(edge.varnish.port, "127.0.0.2", missing, READ_LIMIT + 1)
    second = read_statuses(edge.varnish.port, "127.0.0.3", missing, 1)
    spoofed = request_from(
        edge.varnish.port, "127.0.0.2", "GET", missing, headers={"X-Forwarded-For": "127.0.0.9"}
    )
    # Reads the edge answers cost the origin nothing: the limited client still reads them.
    from_cache = [request_from(edge.varnish.port, "127.0.0.2", "GET", cached) for _ in range(10)]

    assert first == [404] * READ_LIMIT + [429]
    assert second == [404]
    assert spoofed.status == 429
    assert all(reply.status == 200 and hit(reply) for reply in from_cache)


def test_behind_nginx_and_the_edge_two_hops_name_the_client(start_edge, blog):
    if nginx_binary() is None:
        pytest.skip(f"nginx is not installed: {NGINX_INSTALL}")
    edge = start_edge(
        RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ=f"{READ_LIMIT}/min", TRUSTED_PROXY_HOPS="2"
    )
    missing = f"{API}/blogs/{blog.pk + 1000}"
    with Nginx(upstream_port=edge.varnish.port) as nginx:
        first = read_statuses(nginx.port, "127.0.0.2", missing, READ_LIMIT + 1)
        second = read_statuses(nginx.port, "127.0.0.3", missing, 1)
        relayed_purge = request_from(
            nginx.port, "127.0.0.1", "PURGE", "/", headers={"xkey-softpurge": "site"}
        )
    assert first == [404] * READ_LIMIT + [429]
    assert second == [404]
    assert relayed_purge.status == 403  # a purge is never taken from the public side


# --- make serve-edge ---------------------------------------------------------------------------


@pytest.fixture
def serve_edge_folder() -> Iterator[Path]:
    # Out of pytest's private folder: varnishd, started as root, reads its VCL as its own user.
    folder = Path(tempfile.mkdtemp(prefix="serve-edge-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def manage(env: dict[str, str], *args: str) -> str:
    completed = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_make_serve_edge_serves_through_varnish_and_purges_on_each_write(serve_edge_folder):
    if varnishd_binary() is None:
        pytest.skip(f"varnishd is not installed: {INSTALL}")
    env = {
        "SECRET_KEY": "serve-edge-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DATABASE_URL": f"sqlite:///{serve_edge_folder / 'db.sqlite3'}",
        "EDGE_DIR": str(serve_edge_folder / "edge"),
        "WEB_CONCURRENCY": "2",
        "LOG_LEVEL": "WARNING",
    }
    serve = MakeTarget("serve-edge", env)
    try:
        serve.start()
        manage({**env, "DEBUG": "false"}, "seed_demo")
        token = manage({**env, "DEBUG": "false"}, "issue_token", "alice").split()[-1]
        wait_until(
            lambda: " ready." in (serve_edge_folder / "edge" / "worker.log").read_text(),
            timeout=60,
            what="the purge worker",
        )
        # A client of the running edge (make serve-edge started it).
        edge = Edge(Varnish(origin_port=serve.port + 1, port=serve.port), None)
        page = edge.get(f"{API}/blogs/1/articles?pageSize=1").json()
        path = urlsplit(page["_embedded"][0]["_links"]["self"]["href"]).path
        assert hit(twice(edge, path)[1])

        etag = edge.get(path, **{"X-Access-Token": token}).headers["ETag"]
        title = f"Served at the edge {uuid.uuid4().hex[:8]}"
        written = edge.write("PUT", path, token, {"title": title}, **{"If-Match": etag})
        assert written.status == 200, written.body[:300]
        assert_visible(edge, path, contains(title), "a write under make serve-edge")
    finally:
        serve.kill()
