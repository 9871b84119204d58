"""Two PUTs with the same ETag at the same moment: exactly one wins, the other gets 412.

Real concurrency needs real connections: the requests go through live_server, each on its own
thread and database connection. On SQLite the live server shares the test's single in-memory
connection between threads, so two transactions cannot overlap there; the test runs on
PostgreSQL (CI runs the suite on both)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from articles import services
from articles.models import Article
from blogs import services as blog_services
from blogs.models import Blog


def http(method: str, url: str, *, body: dict | None = None, headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def race_two_puts(url: str, token: str, etag: str, round_number: int) -> list[int]:
    """Two threads release a PUT with the same If-Match at the same moment."""
    barrier = threading.Barrier(2)
    results: list[int] = []

    def put(title: str) -> None:
        barrier.wait()
        status, _, _ = http(
            "PUT",
            url,
            body={"title": title},
            headers={"X-Access-Token": token, "If-Match": etag},
        )
        results.append(status)

    threads = [
        threading.Thread(target=put, args=(f"round {round_number} writer {n}",)) for n in (1, 2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_if_match_puts_give_exactly_one_200_and_one_412(
    live_server, django_user_model
):
    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Race")
    blog.authors.add(alice)
    article = services.article_create(blog=blog, title="Start")
    _, token = blog_services.token_issue(user=alice, name="race")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"

    for round_number in range(5):
        _, headers, _ = http("GET", url)
        results = race_two_puts(url, token, headers["ETag"], round_number)
        assert sorted(results) == [200, 412], round_number
    # Five rounds, five changes: no update lost, none doubled.
    assert Article.objects.get(pk=article.pk).version == 6


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_with_one_idempotency_key_make_one_article(live_server, django_user_model):
    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Retry storm")
    blog.authors.add(alice)
    _, token = blog_services.token_issue(user=alice, name="retry")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles"
    barrier = threading.Barrier(4)
    statuses: list[int] = []

    def post() -> None:
        barrier.wait()
        status, _, _ = http(
            "POST",
            url,
            body={"title": "Exactly once"},
            headers={"X-Access-Token": token, "Idempotency-Key": "storm-1"},
        )
        statuses.append(status)

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Each retry either waited for nothing (409: still in progress) or got the first answer.
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}
    assert Article.objects.filter(blog=blog).count() == 1
