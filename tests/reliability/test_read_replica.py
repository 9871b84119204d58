"""gunicorn on its own primary and streaming replica (DATABASE_REPLICA_URL): content reads go
to the replica, a client reads its own writes, and a replica that lags or is gone is left for
the primary (core/db_router.py, docs/production.md "Read replica").

Replay on the replica is paused (pg_wal_replay_pause) to make the lag as long as a test needs:
what an anonymous reader then sees is the replica's older state.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings

from tests.support.load import API, write_headers
from tests.support.postgres import PSQL, ReplicatedPair, missing_binaries
from tests.support.servers import BASE_DIR, GunicornServer

pytestmark = pytest.mark.servers

DATABASE = "blog"
BLOG = 1  # seed_demo's blog, whose author is alice
ARTICLE_QUERY = '{ article(blogId: "%d", id: "%d") { title } }'


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


def graphql_title(server: GunicornServer, article_id: int) -> str | None:
    reply = server.request("POST", "/graphql", body={"query": ARTICLE_QUERY % (BLOG, article_id)})
    assert reply.status == 200, reply.body
    article = reply.json()["data"]["article"]
    return article and article["title"]


def test_a_writer_reads_its_own_writes_while_other_clients_read_the_replica(pair, serve):
    cluster, token = pair
    server = serve(REPLICA_PIN_SECONDS="60")
    reader = {"Accept": "application/hal+json"}
    writer = write_headers(token)
    cluster.replica.sql("SELECT pg_wal_replay_pause()")

    article_id = create(server, token, "Written while the replica waits")
    own = server.request("GET", article_path(article_id), headers=writer)
    assert own.status == 200 and own.json()["title"] == "Written while the replica waits"
    # Another client reads the replica, which has not replayed the write yet.
    assert server.request("GET", article_path(article_id), headers=reader).status == 404
    assert graphql_title(server, article_id) is None

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
    assert server.request("GET", article_path(article_id), headers=writer).status == 200
    time.sleep(3)
    # The pin is over: the writer reads the (paused) replica like everyone else.
    assert server.request("GET", article_path(article_id), headers=writer).status == 404


def test_a_replica_lagging_more_than_the_limit_is_left_for_the_primary(pair, serve):
    cluster, token = pair
    server = serve(REPLICA_MAX_LAG_SECONDS="1", REPLICA_PIN_SECONDS="1")
    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    article_id = create(server, token, "Written while the replica lags")
    time.sleep(3)  # the replica is now more than a second behind, and each worker rechecked
    for _ in range(4):  # every worker
        read = server.request("GET", article_path(article_id))
        assert read.status == 200 and read.json()["title"] == "Written while the replica lags"
    assert "behind; reading from the primary" in server.log()


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
def test_the_representation_cache_is_never_filled_from_a_lagging_replica(pair, serve):
    """A read after a write misses the cache (the write renewed its generation); were the entry
    built from the replica, the old title would be stored as current and served after it."""
    cluster, token = pair
    server = serve(REDIS_URL=settings.REDIS_URL)
    article_id = create(server, token, "Cached before")
    cluster.caught_up()
    cluster.replica.sql("SELECT pg_wal_replay_pause()")
    first = server.request("GET", article_path(article_id))
    assert first.status == 200 and first.json()["title"] == "Cached before"
    replaced = server.request(
        "PUT",
        article_path(article_id),
        body={"title": "Cached after"},
        headers={**write_headers(token), "If-Match": first.headers["ETag"]},
    )
    assert replaced.status == 200
    for _ in range(4):
        read = server.request("GET", article_path(article_id))
        assert read.json()["title"] == "Cached after"
        assert read.headers["ETag"] == replaced.headers["ETag"]
    # The replica is still behind: uncached reads show it.
    assert graphql_title(server, article_id) == "Cached before"


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
