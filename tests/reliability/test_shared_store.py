"""The promises that live in the shared store hold exactly across gunicorn workers and parallel
clients, on each store: Redis, the database store on PostgreSQL (without Redis), and the database
store on SQLite (what `make run` uses)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from functools import partial

import pytest

from articles.models import Article
from tests.support.load import API, race, write_headers
from tests.support.servers import BASE_DIR, GunicornServer

pytestmark = [pytest.mark.servers]

NO_REDIS = {"REDIS_URL": ""}
STORES = {"database": NO_REDIS, "redis": {}}
CLIENTS = 8
WORKERS = 4


def reads(server: GunicornServer, path: str, count: int) -> list[int]:
    # A new connection per request: gunicorn hands them to whichever worker accepts first.
    return [server.request("GET", path).status for _ in range(count)]


def parallel_reads(server: GunicornServer, path: str, each: int) -> list[int]:
    """CLIENTS clients at once, each sending `each` reads one after another."""
    return [
        status
        for client in race([partial(reads, server, path, each)] * CLIENTS)
        for status in client
    ]


@pytest.mark.postgres
@pytest.mark.parametrize("store", STORES)
def test_the_read_limit_is_exact_for_parallel_clients_across_workers(start_server, blog, store):
    server = start_server(
        workers=WORKERS, RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ="100/min", **STORES[store]
    )
    statuses = parallel_reads(server, f"{API}/blogs/{blog.pk}", 25)
    assert (statuses.count(200), statuses.count(429)) == (100, 100)


@pytest.mark.postgres
@pytest.mark.parametrize("store", STORES)
def test_one_idempotency_key_creates_one_article_for_parallel_clients(
    start_server, blog, alice, token_for, store
):
    server = start_server(workers=WORKERS, **STORES[store])
    post = partial(
        server.request,
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        body={"title": "Sent by many at once"},
        headers=write_headers(token_for(alice), **{"Idempotency-Key": f"race-{store}"}),
    )
    for _ in range(3):  # rounds: the first claims the key, the later ones replay it
        statuses = [reply.status for reply in race([post] * (CLIENTS * 4))]
        assert set(statuses) <= {201, 409}
    assert statuses == [201] * (CLIENTS * 4)
    assert Article.objects.filter(blog=blog, title="Sent by many at once").count() == 1


@pytest.fixture
def sqlite_server(tmp_path) -> Callable[..., GunicornServer]:
    """A gunicorn on a SQLite file of its own without Redis, as `make run` stores: migrated and
    seeded with the demo blogs (blog 1 is alice's); with its server's token for alice."""
    environment = {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "REDIS_URL": ""}

    def manage(*command: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=BASE_DIR,
            env={"PATH": "/usr/bin:/bin", "DEBUG": "true", "SECRET_KEY": "x" * 50, **environment},
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    manage("migrate", "--noinput")
    manage("seed_demo")
    token = manage("issue_token", "alice").split()[-1]
    servers: list[GunicornServer] = []

    def start(**env: str) -> GunicornServer:
        server = GunicornServer(env={**environment, **env}, workers=WORKERS)
        server.token = token
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


def test_the_read_limit_is_exact_on_sqlite_across_workers(sqlite_server):
    server = sqlite_server(RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ="70/min")
    statuses = parallel_reads(server, f"{API}/", 15)
    assert (statuses.count(200), statuses.count(429)) == (70, 50)


def test_one_idempotency_key_creates_one_article_on_sqlite(sqlite_server):
    server = sqlite_server()
    post = partial(
        server.request,
        "POST",
        f"{API}/blogs/1/articles",
        body={"title": "Sent by many at once"},
        headers=write_headers(server.token, **{"Idempotency-Key": "race-sqlite"}),
        timeout=30,
    )
    statuses = [reply.status for reply in race([post] * (CLIENTS * 4))]
    assert set(statuses) <= {201, 409} and statuses.count(201) >= 1
    created = {reply.json()["id"] for reply in race([post] * CLIENTS)}
    assert len(created) == 1
    page = server.request("GET", f"{API}/blogs/1/articles?pageSize=100").json()
    titles = [article["title"] for article in page["_embedded"]]
    assert titles.count("Sent by many at once") == 1


@pytest.mark.postgres
def test_retries_of_one_post_create_one_article_across_workers(
    start_server, blog, alice, token_for
):
    server = start_server(workers=3, **NO_REDIS)
    token = token_for(alice)
    post = partial(
        server.request,
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        body={"title": "Sent once, retried often"},
        headers=write_headers(token, **{"Idempotency-Key": "retry-me"}),
    )
    sequential = [post() for _ in range(12)]
    assert {reply.status for reply in sequential} == {201}
    assert len({reply.json()["id"] for reply in sequential}) == 1

    parallel_headers = write_headers(token, **{"Idempotency-Key": "race-me"})
    racing = race(
        [
            partial(
                server.request,
                "POST",
                f"{API}/blogs/{blog.pk}/articles",
                body={"title": "Sent by thirty at once"},
                headers=parallel_headers,
            )
        ]
        * 30
    )
    assert {reply.status for reply in racing} <= {201, 409}
    created = {reply.json()["id"] for reply in racing if reply.status == 201}
    assert len(created) == 1
    assert Article.objects.filter(blog=blog, title="Sent by thirty at once").count() == 1
    assert Article.objects.filter(blog=blog).count() == 2


@pytest.mark.postgres
def test_the_read_limit_counts_every_worker(start_server, blog):
    server = start_server(
        workers=3, RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ="20/min", **NO_REDIS
    )
    # A new connection per request: gunicorn hands them to whichever worker accepts first.
    statuses = [server.request("GET", f"{API}/blogs/{blog.pk}").status for _ in range(45)]
    assert statuses.count(200) == 20
    assert statuses.count(429) == 25
