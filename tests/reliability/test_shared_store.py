"""Without Redis, the promises that live in the cache hold across gunicorn workers: the default
store is then Django's database cache, which every worker shares."""

from __future__ import annotations

from functools import partial

import pytest

from articles.models import Article
from tests.support.load import API, race, write_headers

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

NO_REDIS = {"REDIS_URL": ""}


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


def test_the_read_limit_counts_every_worker(start_server, blog):
    server = start_server(
        workers=3, RATE_LIMIT_ENABLED="true", RATE_LIMIT_READ="20/min", **NO_REDIS
    )
    # A new connection per request: gunicorn hands them to whichever worker accepts first.
    statuses = [server.request("GET", f"{API}/blogs/{blog.pk}").status for _ in range(45)]
    assert statuses.count(200) == 20
    assert statuses.count(429) == 25
