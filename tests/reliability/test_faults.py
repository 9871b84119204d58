"""Faults injected between gunicorn and its backing services, through a TCP proxy we cut.

The machine's PostgreSQL and Redis keep running; only the proxy's link is broken, which is what
a crashed database server or a network partition looks like from the service.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import pytest
from django.db import connection, transaction

from articles.models import Article
from tests.support.fixtures import other_sessions
from tests.support.load import API, is_problem, write_headers
from tests.support.servers import GunicornServer, Response

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

GRAPHQL_HELLO = '{"query": "{ hello }"}'
SOAP_ADD = (
    '<?xml version="1.0"?><e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope">'
    '<e:Body><AddValues xmlns="http://example.org/calculator"><FirstValue>2</FirstValue>'
    "<SecondValue>3</SecondValue></AddValues></e:Body></e:Envelope>"
)


def until(condition, *, timeout: float = 30.0, every: float = 0.2):
    """Poll `condition` until it returns something truthy; that value, or None at the end."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if result := condition():
                return result
        time.sleep(every)
    return None


def assert_unavailable(reply: Response) -> None:
    assert reply.status == 503, (reply.status, reply.body[:300])
    assert int(reply.headers["Retry-After"]) > 0
    assert b"Traceback" not in reply.body and b"psycopg" not in reply.body.lower()


def test_postgres_cut_gives_503_problems_and_recovers_without_restart(
    start_server, pg_proxy, blog, article, alice, token_for
):
    server = start_server(workers=2, database_via=pg_proxy)
    token = token_for(alice)
    article_path = f"{API}/blogs/{blog.pk}/articles/{article.pk}"
    before = server.request("GET", article_path)
    assert before.status == 200
    workers_before = server.worker_pids()

    with pg_proxy.outage():
        # The article read before the cut is in the representation cache (Redis): no write can
        # commit while the database is away, so that entry is still the truth and is served.
        for _ in range(3):
            hot = server.request("GET", article_path)
            assert hot.status == 200, (hot.status, hot.body[:300])
            assert hot.body == before.body and hot.headers["ETag"] == before.headers["ETag"]
        reads = [
            server.request("GET", path)
            for path in (
                f"{API}/blogs/{blog.pk}",
                f"{API}/blogs/{blog.pk}/articles",
                f"{API}/blogs/{blog.pk}/articles/{article.pk}/comments",
                f"{API}/blogs/{blog.pk}/articles/{article.pk + 1000}",
            )
            for _ in range(3)  # each worker's persistent connection, then fresh ones
        ]
        writes = [
            server.request(
                "POST",
                f"{API}/blogs/{blog.pk}/articles",
                body={"title": "during the outage"},
                headers=write_headers(token),
            ),
            server.request(
                "PUT",
                article_path,
                body={"title": "during the outage"},
                headers=write_headers(token),
            ),
            server.request("DELETE", article_path, headers=write_headers(token)),
        ]
        for reply in reads + writes:
            assert_unavailable(reply)
            assert is_problem(reply)
        health = server.request("GET", "/healthz")
        assert_unavailable(health)
        graphql = server.request(
            "POST", "/graphql", body=GRAPHQL_HELLO, headers={"Content-Type": "application/json"}
        )
        assert graphql.status < 500, graphql.status
        soap = server.request(
            "POST",
            "/soap/calculator",
            body=SOAP_ADD,
            headers={"Content-Type": "application/soap+xml; charset=utf-8"},
        )
        assert soap.status == 200, soap.status  # AddValues needs no database

    recovered = until(lambda: server.request("GET", article_path).status == 200)
    assert recovered, "the service did not recover after PostgreSQL came back"
    assert until(lambda: server.request("GET", "/healthz").status == 200)
    assert server.worker_pids() == workers_before, "recovery must not need new workers"
    article.refresh_from_db()
    assert article.title == "First post" and article.deleted_at is None
    assert not Article.objects.filter(title="during the outage").exists()
    assert pg_proxy.refused > 0, "the outage never reached the database link"


def test_redis_cut_keeps_the_service_serving_and_rate_limits_resume(
    start_server, redis_proxy, blog, article, alice, token_for
):
    limit = 8
    server = start_server(
        redis_via=redis_proxy, RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ=f"{limit}/min"
    )
    token = token_for(alice)
    blog_path = f"{API}/blogs/{blog.pk}"
    assert [server.request("GET", blog_path).status for _ in range(3)] == [200] * 3

    with redis_proxy.outage():
        # Documented fallback: rate limits fail open while Redis is unreachable.
        statuses = [server.request("GET", blog_path).status for _ in range(2 * limit)]
        assert statuses == [200] * (2 * limit)
        created = server.request(
            "POST",
            f"{blog_path}/articles",
            body={"title": "while Redis is away"},
            headers=write_headers(token),
        )
        assert created.status == 201, created.body[:300]
        # An Idempotency-Key asks for a guarantee that cannot be given without Redis: 503.
        keyed = server.request(
            "POST",
            f"{blog_path}/articles",
            body={"title": "keyed while Redis is away"},
            headers=write_headers(token, **{"Idempotency-Key": "during-the-outage"}),
        )
        assert_unavailable(keyed)
        assert is_problem(keyed)
        assert server.request("GET", "/healthz").status == 200

    # Back: the counters count again (the three reads before the outage are still there).
    statuses = [server.request("GET", blog_path).status for _ in range(limit)]
    assert statuses == [200] * (limit - 3) + [429] * 3, statuses
    assert redis_proxy.refused > 0
    assert not Article.objects.filter(title="keyed while Redis is away").exists()


def _send_in_background(server: GunicornServer, *args, **kwargs) -> dict:
    outcome: dict = {}

    def send() -> None:
        try:
            outcome["reply"] = server.request(*args, timeout=30, **kwargs)
        except OSError as error:  # the worker died under the request
            outcome["error"] = error

    outcome["thread"] = threading.Thread(target=send, daemon=True)
    outcome["thread"].start()
    return outcome


def _outcome(pending: dict) -> str:
    """What became of a request sent in the background, for a failure's message."""
    if "reply" in pending:
        reply = pending["reply"]
        return f"answered {reply.status} {reply.body[:300]!r}"
    return f"failed: {pending['error']!r}" if "error" in pending else "no answer yet"


def _kill_the_worker_while_it_waits(
    server: GunicornServer, lock: tuple[str, list], method: str, path: str, **request
) -> int:
    """Takes `lock` in a transaction, sends the request, and SIGKILLs the server's only worker
    once the request waits on that lock, halfway through its write. The worker's pid."""
    (worker,) = server.worker_pids()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(*lock)
        pending = _send_in_background(server, method, path, **request)
        assert until(lambda: other_sessions(waiting_for_a_lock=True)), (
            f"the {method} never reached the database: {_outcome(pending)}"
        )
        os.kill(worker, signal.SIGKILL)
        pending["thread"].join(timeout=30)
    assert "error" in pending or pending["reply"].status >= 500
    return worker


def test_a_worker_killed_in_the_middle_of_a_post_leaves_no_partial_write(
    start_server, blog, alice, token_for
):
    server = start_server(workers=1)
    token = token_for(alice)
    count_before = blog.article_count
    # The POST bumps the blog's counter first, then inserts the article; holding the table
    # stops it between the two, with half of its write done inside its transaction.
    worker = _kill_the_worker_while_it_waits(
        server,
        ("LOCK TABLE articles_article IN SHARE MODE", []),
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        body={"title": "half written"},
        headers=write_headers(token),
    )
    blog.refresh_from_db()
    assert blog.article_count == count_before
    assert not Article.objects.filter(title="half written").exists()
    assert until(lambda: server.worker_pids() and server.worker_pids() != [worker])
    assert until(lambda: server.request("GET", f"{API}/blogs/{blog.pk}").status == 200)


def test_a_worker_killed_in_the_middle_of_a_put_leaves_the_article_as_it_was(
    start_server, blog, article, alice, token_for
):
    server = start_server(workers=1)
    token = token_for(alice)
    # The PUT updates the article row, then the blog's revision: holding the blog row stops it
    # between the two.
    _kill_the_worker_while_it_waits(
        server,
        ("SELECT id FROM blogs_blog WHERE id = %s FOR NO KEY UPDATE", [blog.pk]),
        "PUT",
        f"{API}/blogs/{blog.pk}/articles/{article.pk}",
        body={"title": "half replaced"},
        headers=write_headers(token),
    )
    article_after = Article.objects.get(pk=article.pk)
    assert (article_after.title, article_after.version) == (article.title, article.version)
