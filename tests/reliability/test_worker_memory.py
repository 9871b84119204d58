"""A worker's memory after many reads (issue 30, point 3): the garbage a request leaves in
reference cycles (DRF's view, request and response hold each other, and the response its data)
is collected while the worker serves, not left to pile up until a full collection of the whole
heap (config/gunicorn.conf.py's pre_fork freezes the preloaded application out of the workers'
collections; docs/benchmarks.md)."""

from __future__ import annotations

import pytest
from django.db import connection

from articles.seeding import articles_vacuum_for_bench
from blogs.models import Blog
from tests.support.load import API
from tests.support.servers import rss_kib

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

WARM_UP = 30
READS = 300
# Without the freeze the same reads grew the worker by 17 MiB (93.5 -> 110.9); with it by 2.5.
MOST_GROWTH_KIB = 8 * 1024


@pytest.fixture
def blog_of_100(transactional_db, alice) -> Blog:
    blog = Blog.objects.create(title="A hundred articles")
    blog.authors.add(alice)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO articles_article"
            " (blog_id, title, content, created_at, updated_at, version, locked)"
            " SELECT %s, 'Article ' || md5(n::text), repeat('Some text. ', 40),"
            " now() - n * interval '1 second', now(), 1, false FROM generate_series(1, 100) AS n",
            [blog.pk],
        )
    Blog.objects.filter(pk=blog.pk).update(article_count=100)
    assert articles_vacuum_for_bench()
    return blog


def test_a_worker_reading_pages_of_100_does_not_keep_their_garbage(start_server, blog_of_100):
    server = start_server(workers=1)
    (worker,) = server.worker_pids()
    path = f"{API}/blogs/{blog_of_100.pk}/articles?pageSize=100"

    def read() -> None:
        reply = server.request("GET", path, headers={"Accept": "application/hal+json"})
        assert reply.status == 200, reply.body[:300]
        assert len(reply.json()["_embedded"]) == 100

    for _ in range(WARM_UP):
        read()
    before = rss_kib(worker)
    for _ in range(READS):
        read()
    grown = rss_kib(worker) - before

    assert grown < MOST_GROWTH_KIB, f"{READS} reads of a page of 100 grew the worker {grown} KiB"
