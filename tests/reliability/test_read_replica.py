"""gunicorn on its own primary and streaming replica (DATABASE_REPLICA_URL): content reads go
to the replica, a client reads its own writes, and a replica that lags or is gone is left for
the primary (core/db_router.py, docs/production.md "Read replica"). The representation cache
(in an own redis-server, and in the database store) fills a miss from the replica once the
replica has replayed the writes that set the entry's generations, from the primary before
(core/representations.py).

Replay on the replica is paused (pg_wal_replay_pause) to make the lag as long as a test needs:
what an anonymous reader then sees is the replica's older state. Which database served what is
counted by the server's own metrics (blog_db_queries_total, by database alias).
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
import redis

from tests.support.load import API, write_headers
from tests.support.metrics import parse
from tests.support.postgres import PSQL, ReplicatedPair, missing_binaries
from tests.support.purge_endpoint import Edge
from tests.support.servers import BASE_DIR, GunicornServer
from tests.support.webhooks import RedisServer

pytestmark = pytest.mark.servers

DATABASE = "blog"
BLOG = 1  # seed_demo's blog, whose author is alice
ARTICLE_QUERY = '{ article(blogId: "%d", id: "%d") { title } }'
PAGE_QUERY = '{ blog(id: "%d") { articles(pageIndex: %d, pageSize: %d) { items { title } } } }'
SEARCH_QUERY = '{ blog(id: "%d") { articles(q: "%s") { items { title } } } }'
METRICS_TOKEN = "replica-tests-metrics-token"
HAL = {"Accept": "application/hal+json"}
HAL_FORMS = {"Accept": "application/prs.hal-forms+json"}


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={"PATH": os.environ.get("PATH", ""), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[ReplicatedPair, str]]:
    """A primary with the demo data and alice's token, and its caught-up streaming replica."""
    missing = missing_binaries("initdb", "pg_ctl", "pg_basebackup")
    if missing or not os.path.exists(PSQL):
        pytest.skip(f"needs PostgreSQL 15's server binaries and psql (missing: {missing})")
    pair = ReplicatedPair()
    try:
        pair.start()
        pair.primary.sql(f"CREATE DATABASE {DATABASE}")
        env = {
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": "replica-tests-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            "DATABASE_URL": pair.primary.url(DATABASE),
        }
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "seed_demo")
        token = manage(env, "issue_token", "alice", "--name", "replica tests").split()[-1]
        pair.caught_up()
        yield pair, token
    finally:
        pair.stop()


@dataclass
class Store:
    """The shared store the server caches representations in, and a way to lose keys of it."""

    env: dict[str, str]
    lose_generations: Callable[[], int]  # as an eviction would; how many there were


@pytest.fixture(params=["redis", "database"])
def cache_store(request, pair) -> Iterator[Store]:
    """An own, empty redis-server (no keys of other runs), or the database store on the primary
    (the default without REDIS_URL), emptied."""
    cluster, _ = pair
    if request.param == "database":
        cluster.primary.sql("DELETE FROM core_store", database=DATABASE)

        def lose_rows() -> int:
            deleted = cluster.primary.sql(
                "WITH gone AS (DELETE FROM core_store WHERE cache_key LIKE '%rep:gen:%'"
                " RETURNING 1) SELECT count(*) FROM gone",
                database=DATABASE,
            )
            return int(deleted)

        yield Store({}, lose_rows)
        return
    if not RedisServer.available():
        pytest.skip("needs redis-server (Debian package redis-server) for the cache")
    with RedisServer() as server:
        client = redis.Redis.from_url(server.url())

        def lose_keys() -> int:
            keys = [*client.scan_iter(match="*rep:gen:*")]
            return client.delete(*keys) if keys else 0

        yield Store({"REDIS_URL": server.url()}, lose_keys)


@pytest.fixture
def serve(pair) -> Iterator[Callable[..., GunicornServer]]:
    """serve(**env) -> gunicorn on the pair; replay is resumed and servers stopped afterwards."""
    cluster, _ = pair
    started: list[GunicornServer] = []

    def start(**env: str) -> GunicornServer:
        server = GunicornServer(
            env={
                "DATABASE_URL": cluster.primary.url(DATABASE),
                "DATABASE_REPLICA_URL": cluster.replica.url(DATABASE),
                "RATE_LIMIT_ENABLED": "false",
                "REPLICA_CHECK_SECONDS": "1",
                "REPLICA_MAX_LAG_SECONDS": "600",
                **env,
            }
        )
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
    if cluster.replica.sql("SELECT pg_is_wal_replay_paused()") == "t":
        cluster.replica.sql("SELECT pg_wal_replay_resume()")
    cluster.caught_up()


def article_path(article_id: int) -> str:
    return f"{API}/blogs/{BLOG}/articles/{article_id}"


def create(server: GunicornServer, token: str, title: str) -> int:
    created = server.request(
        "POST", f"{API}/blogs/{BLOG}/articles", body={"title": title}, headers=write_headers(token)
    )
    assert created.status == 201, created.body
    return created.json()["id"]


def graphql(server: GunicornServer, query: str, headers: dict[str, str] | None = None) -> dict:
    reply = server.request("POST", "/graphql", body={"query": query}, headers=headers)
    assert reply.status == 200, reply.body
    assert "errors" not in reply.json(), reply.body
    return reply.json()["data"]


def graphql_title(
    server: GunicornServer, article_id: int, headers: dict[str, str] | None = None
) -> str | None:
    """The article's title as GraphQL reads it (never from the representation cache)."""
    article = graphql(server, ARTICLE_QUERY % (BLOG, article_id), headers)["article"]
    return article and article["title"]


def found_by_search(server: GunicornServer, word: str, headers: dict[str, str]) -> list[str]:
    """The titles a search finds (search pages are not cached: they read where the router says;
    a broad search's ranking is kept, only from a state as new as its generations)."""
    reply = server.request("GET", f"{API}/blogs/{BLOG}/articles?q={word}", headers=headers)
    assert reply.status == 200, reply.body
    return [member["title"] for member in reply.json().get("_embedded", [])]


def cached_server(serve, cache_store: Store, tmp_path) -> GunicornServer:
    """A server caching in `cache_store`, with metrics that count statements by database."""
    return serve(
        **cache_store.env,
        METRICS_TOKEN=METRICS_TOKEN,
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
    )


def statements(server: GunicornServer) -> dict[str, float]:
    """SQL statements run so far for REST and GraphQL requests, by database alias, and the
    calls to the shared store among them when it is the database's (one statement each)."""
    scraped = server.request(
        "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    assert scraped.status == 200, scraped.body
    counts = {"default": 0.0, "replica": 0.0, "store": 0.0}
    for (name, labels), count in parse(scraped.body.decode()).items():
        labelled = dict(labels)
        if labelled.get("surface") not in ("rest", "graphql"):
            continue
        if name == "blog_db_queries_total":
            counts[labelled["database"]] += count
        elif name == "blog_cache_calls_total":
            counts["store"] += count
    return counts


def statements_during(server: GunicornServer, reads: Callable[[], object]) -> dict[str, float]:
    before = statements(server)
    reads()
    after = statements(server)
    return {alias: after[alias] - before[alias] for alias in after}


def read_through(server: GunicornServer, path: str, host: str, accept: dict[str, str]):
    """A GET by an anonymous client under `host` (each origin is a cache key of its own)."""
    reply = server.request("GET", path, headers={**accept, "Host": f"{host}:{server.port}"})
    assert reply.status == 200, reply.body
    return reply


def test_a_writer_reads_its_own_writes_while_other_clients_read_the_replica(pair, serve):
    cluster, token = pair
    server = serve(REPLICA_PIN_SECONDS="60")
    reader = {"Accept": "application/hal+json"}
    writer = write_headers(token)
    cluster.replica.sql("SELECT pg_wal_replay_pause()")

    article_id = create(server, token, "Written while the replica waits")
    own = server.request("GET", article_path(article_id), headers=writer)
    assert own.status == 200 and own.json()["title"] == "Written while the replica waits"
    assert found_by_search(server, "waits", writer) == ["Written while the replica waits"]
    # Another client's uncached reads come from the replica, which has not replayed the write
    # yet; the representation cache has the writer's read, built from the primary.
    assert found_by_search(server, "waits", reader) == []
    assert graphql_title(server, article_id) is None
    other = server.request("GET", article_path(article_id), headers=reader)
    assert other.status == 200 and other.headers["ETag"] == own.headers["ETag"]

    replaced = server.request(
        "PUT",
        article_path(article_id),
        body={"title": "Replaced while the replica waits"},
        headers={**writer, "If-Match": own.headers["ETag"]},
    )
    assert replaced.status == 200, replaced.body
    again = server.request("GET", article_path(article_id), headers=writer)
    assert again.json()["title"] == "Replaced while the replica waits"
    assert again.headers["ETag"] == replaced.headers["ETag"]
    conditional = {**writer, "If-None-Match": replaced.headers["ETag"]}
    assert server.request("GET", article_path(article_id), headers=conditional).status == 304

    cluster.replica.sql("SELECT pg_wal_replay_resume()")
    cluster.caught_up()
    seen = server.request("GET", article_path(article_id), headers=reader)
    assert seen.status == 200 and seen.json()["title"] == "Replaced while the replica waits"
    assert seen.headers["ETag"] == replaced.headers["ETag"]
    assert graphql_title(server, article_id) == "Replaced while the replica waits"


def test_the_pin_to_the_primary_ends_after_replica_pin_seconds(pair, serve):
    cluster, token = pair
    server = serve(REPLICA_PIN_SECONDS="2")
    writer = write_headers(token)
    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    article_id = create(server, token, "Pinned for two seconds")
    assert graphql_title(server, article_id, writer) == "Pinned for two seconds"
    assert found_by_search(server, "Pinned", writer) == ["Pinned for two seconds"]
    time.sleep(3)
    # The pin is over: the writer's uncached reads come from the (paused) replica like
    # everyone else's.
    assert graphql_title(server, article_id, writer) is None
    assert found_by_search(server, "Pinned", writer) == []


def test_a_broad_search_ranked_on_a_replica_behind_its_articles_is_carried_over_what_it_missed(
    pair, serve, cache_store
):
    """A search reads the replica even while it lags, as any uncached read; a ranking it makes
    there is kept with the replica's snapshot, so that once the replica has caught up the write
    it had not replayed is carried over it: kept as it was, it would hide the write from every
    reader."""
    cluster, token = pair
    server = serve(**cache_store.env, SEARCH_CACHE_MIN_MATCHES="1")
    reader = {"Accept": "application/hal+json"}
    word = "ranked" + "".join(random.choices(string.ascii_lowercase, k=8))  # this run's own
    create(server, token, f"{word} first")
    cluster.caught_up()
    assert found_by_search(server, word, reader) == [f"{word} first"]

    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    create(server, token, f"{word} second")
    for _ in range(4):  # every worker: the replica's state
        assert found_by_search(server, word, reader) == [f"{word} first"]

    cluster.replica.sql("SELECT pg_wal_replay_resume()")
    cluster.caught_up()
    for _ in range(4):
        assert sorted(found_by_search(server, word, reader)) == [f"{word} first", f"{word} second"]


def test_a_replica_lagging_more_than_the_limit_is_left_for_the_primary(pair, serve):
    cluster, token = pair
    server = serve(REPLICA_MAX_LAG_SECONDS="1", REPLICA_PIN_SECONDS="1")
    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    article_id = create(server, token, "Written while the replica lags")
    time.sleep(3)  # the replica is now more than a second behind, and each worker rechecked
    for _ in range(4):  # every worker
        read = server.request("GET", article_path(article_id))
        assert read.status == 200 and read.json()["title"] == "Written while the replica lags"
        assert graphql_title(server, article_id) == "Written while the replica lags"
    assert "behind; reading from the primary" in server.log()


def test_a_miss_the_replica_cannot_serve_yet_is_built_from_the_primary_and_never_stale(
    pair, serve, cache_store, tmp_path
):
    """After a write the lagging replica has not replayed, every read through the cache (every
    worker, both origins, HAL and HAL-FORMS, the page) shows the write, then and after the
    replica catches up: an entry built from the replica under the write's generations would
    show the old title to all of them, and keep showing it after the catch-up."""
    cluster, token = pair
    server = cached_server(serve, cache_store, tmp_path)
    article_id = create(server, token, "Cached before")
    untouched_id = create(server, token, "Not written again")
    cluster.caught_up()
    first = read_through(server, article_path(article_id), "127.0.0.1", HAL)
    assert first.json()["title"] == "Cached before"
    read_through(server, article_path(untouched_id), "127.0.0.1", HAL)
    cluster.caught_up()  # past the positions these first reads recorded too
    cluster.replica.sql("SELECT pg_wal_replay_pause()")

    replaced = server.request(
        "PUT",
        article_path(article_id),
        body={"title": "Cached after"},
        headers={**write_headers(token), "If-Match": first.headers["ETag"]},
    )
    assert replaced.status == 200
    keys = [(host, accept) for host in ("127.0.0.1", "localhost") for accept in (HAL, HAL_FORMS)]
    page = f"{API}/blogs/{BLOG}/articles?pageSize=100"

    def every_reader_sees_the_write() -> None:
        for host, accept in keys:
            for _ in range(4):  # both workers, a miss first and hits after
                read = read_through(server, article_path(article_id), host, accept)
                assert read.json()["title"] == "Cached after"
                if accept is HAL:  # HAL-FORMS has validators of its own
                    assert read.headers["ETag"] == replaced.headers["ETag"]
            members = read_through(server, page, host, accept).json()["_embedded"]
            titles = [member["title"] for member in members]
            assert "Cached after" in titles and "Cached before" not in titles

    every_reader_sees_the_write()
    # The replica is still behind: uncached reads show it.
    assert graphql_title(server, article_id) == "Cached before"

    # What the replica has replayed it still serves: a miss on the article not written since
    # (the primary answers the database store's calls only, if it is the store).
    used = statements_during(
        server, lambda: read_through(server, article_path(untouched_id), "localhost", HAL)
    )
    store = used["store"] if not cache_store.env else 0
    assert used["replica"] >= 1 and used["default"] == store, used

    # Generations lost after the write (evicted, or the cache restarted) start again without a
    # known position: the primary's current one is read, which the replica has not reached.
    assert cache_store.lose_generations() >= 3
    every_reader_sees_the_write()

    cluster.replica.sql("SELECT pg_wal_replay_resume()")
    cluster.caught_up()
    every_reader_sees_the_write()
    assert graphql_title(server, article_id) == "Cached after"


def test_cache_misses_go_to_a_replica_that_has_replayed_their_writes(
    pair, serve, cache_store, tmp_path
):
    """The operator's check: different articles, pages, searches and GraphQL queries, each read
    once, on a replica that has replayed every write, the positions' too."""
    cluster, token = pair
    server = cached_server(serve, cache_store, tmp_path)
    titles = {create(server, token, f"Read from the replica #{n}"): n for n in range(20)}
    # The blog's own generation, not renewed by these writes, gets its position on a first read
    # (of another origin: no key read below); with the database store that read writes too.
    read_through(server, article_path(next(iter(titles))), "localhost", HAL)
    cluster.caught_up()

    def read_everything_once() -> None:
        for article_id, n in titles.items():
            read = read_through(server, article_path(article_id), "127.0.0.1", HAL)
            assert read.json()["title"] == f"Read from the replica #{n}"
        for size in (5, 10):
            for index in (1, 2, 3):
                path = f"{API}/blogs/{BLOG}/articles?pageSize={size}&pageIndex={index}"
                assert read_through(server, path, "127.0.0.1", HAL).json()["_embedded"]
        for article_id, n in titles.items():
            assert graphql_title(server, article_id) == f"Read from the replica #{n}"
        for index in (1, 2):
            page = graphql(server, PAGE_QUERY % (BLOG, index, 10))["blog"]["articles"]
            assert page["items"]
        # Searches are never cached.
        assert len(found_by_search(server, "replica", HAL)) == 10
        found = graphql(server, SEARCH_QUERY % (BLOG, "replica"))["blog"]["articles"]
        assert len(found["items"]) == 10

    used = statements_during(server, read_everything_once)
    assert used["replica"] >= len(titles) * 2 + 6 + 2 + 2, used  # every miss, every query
    # What the content took: the store's own statements (the database store's) set apart.
    store = used["store"] if not cache_store.env else 0
    assert used["replica"] / (used["replica"] + used["default"] - store) >= 0.9, used


@pytest.mark.parametrize("cache_store", ["redis"], indirect=True)
def test_a_first_sight_costs_the_primary_one_position_read_at_most(
    pair, serve, cache_store, tmp_path
):
    """Articles never written since the cache started (the demo's, seeded before) have no
    recorded position: a miss reads the primary's current one, and the article from the replica.
    (With the database store, that position includes the store's own write of the new
    generation, which the replica has not replayed a moment later: the primary builds.)"""
    cluster, _ = pair
    server = cached_server(serve, cache_store, tmp_path)
    cluster.caught_up()
    seeded = range(1, 21)

    def read_each_once() -> None:
        for article_id in seeded:
            read_through(server, article_path(article_id), "127.0.0.1", HAL)

    used = statements_during(server, read_each_once)
    store = used["store"] if not cache_store.env else 0
    assert used["default"] - store <= len(seeded), used
    assert used["replica"] >= len(seeded), used


# In a process of its own: an article written (its purge recorded in the write's transaction, its
# message read back from an in-memory broker), then the worker's task run on that message.
WRITE_AND_PURGE = """
import json
from django.db import transaction
from articles import services
from blogs.models import Blog
from core.tasks import purge_edge
with transaction.atomic():
    article = services.article_create(blog=Blog.objects.get(pk=%d), title=%r)
from core.broker import app
with app().connection_for_read() as broker:
    message = broker.default_channel.basic_get(queue="celery", no_ack=True)
print(json.dumps([article.pk, message.headers["task"], message.decode()[0]]), flush=True)
print(json.dumps(purge_edge(*message.decode()[0])), flush=True)
"""


def count(node, table: str, condition: str) -> int:
    """Rows of `table` matching `condition` (the test's own values) on one server of the pair."""
    statement = f"SELECT count(*) FROM {table} WHERE {condition}"  # noqa: S608
    return int(node.sql(statement, database=DATABASE))


def test_an_edge_purge_waits_until_the_replica_has_replayed_the_write(pair):
    """The edge refetches a purged object at once, as an anonymous read (sent to the replica):
    purged before the replica replayed the write, it would keep the old state for s-maxage. So
    the purge waits for the primary's WAL position read after the commit, however long replay
    is paused (within the lag the router accepts), and goes out once it is replayed."""
    cluster, _ = pair
    title = "Purged once the replica has it " + "".join(random.choices(string.ascii_lowercase, k=8))
    replica_had_it: list[int] = []

    def on_purge(keys: set[str]) -> None:  # what the edge's refetch would read now
        replica_had_it.append(count(cluster.replica, "articles_article", f"title = '{title}'"))

    edge = Edge(on_purge=on_purge)
    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            WRITE_AND_PURGE % (BLOG, title),
        ],
        cwd=BASE_DIR,
        env={
            "PATH": os.environ.get("PATH", ""),
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": "replica-tests-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            "DATABASE_URL": cluster.primary.url(DATABASE),
            "DATABASE_REPLICA_URL": cluster.replica.url(DATABASE),
            "EDGE_PURGE_URLS": edge.url,
            "CELERY_BROKER_URL": "memory://",
            "REPLICA_CHECK_SECONDS": "1",
            "REPLICA_MAX_LAG_SECONDS": "600",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        written = process.stdout.readline()
        assert written, process.communicate(timeout=30)[1]
        article_id, task, args = json.loads(written)
        assert task == "core.purge_edge"
        row_id, position = args  # the primary's WAL position, read after the commit
        assert position > 0
        # The replica has not replayed the write.
        assert count(cluster.replica, "articles_article", f"id = {article_id}") == 0

        time.sleep(1)
        assert process.poll() is None and edge.purges == []  # the purge waits

        cluster.replica.sql("SELECT pg_wal_replay_resume()")
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert json.loads(out) is True
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        edge.down()
        if cluster.replica.sql("SELECT pg_is_wal_replay_paused()") == "t":
            cluster.replica.sql("SELECT pg_wal_replay_resume()")
        cluster.caught_up()
    assert edge.keys() == [
        {
            f"article:{article_id}",
            f"blog-articles:{BLOG}",
            "articles",
            f"article-comments:{article_id}",
        }
    ]
    assert replica_had_it == [1]  # the edge's refetch reads the new state
    assert count(cluster.primary, "core_edge_purge", f"id = {row_id}") == 0


def test_without_the_replica_reads_and_writes_are_served_by_the_primary(pair, serve):
    cluster, token = pair
    server = serve()
    article_id = create(server, token, "Before the replica stops")
    cluster.caught_up()
    for _ in range(4):  # every worker keeps a connection to the replica
        assert server.request("GET", article_path(article_id)).status == 200
    cluster.replica.stop()
    try:
        for _ in range(6):
            read = server.request("GET", article_path(article_id))
            assert read.status == 200 and read.json()["title"] == "Before the replica stops"
            page = server.request("GET", f"{API}/blogs/{BLOG}/articles")
            assert page.status == 200
        assert graphql_title(server, article_id) == "Before the replica stops"
        written = create(server, token, "While the replica is gone")
        read = server.request("GET", article_path(written))
        assert read.status == 200 and read.json()["title"] == "While the replica is gone"
        assert "read replica unreachable" in server.log()
    finally:
        cluster.replica.start()
