"""Pages of a large blog in every order, read by several clients at once through gunicorn while
an author writes to the blog (each write a new revision: the reads carry their boundaries over
the changes the writes remember): no read waits a second, none fails, the health check answers
throughout, and the pages are right after (issue 27; articles/pages.py)."""

from __future__ import annotations

import json
import random
import threading

import pytest
from django.db import connection

from articles.models import Article
from articles.search import ORDERINGS
from articles.seeding import articles_vacuum_for_bench
from blogs.models import Blog
from tests.support.load import API, health_checks, run_together, timed_reads, write_headers

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

ARTICLES = 200_000
READERS = 8
SECONDS = 6.0
SLOWEST_SECONDS = 1.0
SORTS = [None, *ORDERINGS]


@pytest.fixture
def large_blog(transactional_db, alice) -> Blog:
    """ARTICLES live articles with distinct titles and times, committed and vacuumed (as
    seed_bench leaves the benchmark's blog), so the servers read them as a deployment would."""
    blog = Blog.objects.create(title="A large blog")
    blog.authors.add(alice)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO articles_article"
            " (blog_id, title, content, created_at, updated_at, version, locked)"
            " SELECT %s, 'Article ' || md5(n::text), 'Text.', now() - n * interval '1 second',"
            " now() - ((n * 7) %% %s) * interval '1 second', 1, false"
            " FROM generate_series(1, %s) AS n",
            [blog.pk, ARTICLES, ARTICLES],
        )
    Blog.objects.filter(pk=blog.pk).update(article_count=ARTICLES)
    assert articles_vacuum_for_bench()
    return blog


def page_path(blog: Blog, sort: str | None, index: int) -> str:
    order = f"&sort={sort}" if sort else ""
    return f"{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize=10{order}"


def test_readers_of_every_order_and_a_writer_never_wait_a_second(
    start_server, large_blog, token_for, alice
):
    server = start_server(REPRESENTATION_CACHE_SECONDS="0")
    token = token_for(alice)
    reads: list[tuple[int, float, str]] = []
    checks: list[int] = []
    writes: list[int] = []

    def path_of(chosen: random.Random) -> str:
        return page_path(large_blog, chosen.choice(SORTS), chosen.randint(1, ARTICLES // 10))

    def write(stop: threading.Event) -> None:
        number = 0
        while not stop.is_set():
            number += 1
            reply = server.request(
                "POST",
                f"{API}/blogs/{large_blog.pk}/articles",
                body={"title": f"Written meanwhile {number}"},
                headers=write_headers(token),
            )
            writes.append(reply.status)
            stop.wait(0.3)

    run_together(
        SECONDS,
        *(timed_reads(server, seed, path_of, reads) for seed in range(READERS)),
        write,
        health_checks(server, checks),
    )

    assert len(reads) > READERS * 10, len(reads)
    assert {status for status, _, _ in reads} == {200}, [r for r in reads if r[0] != 200][:3]
    slowest = max(reads, key=lambda read: read[1])
    assert slowest[1] < SLOWEST_SECONDS, slowest
    assert checks and set(checks) == {200}, checks
    assert len(writes) > 3 and set(writes) == {201}, writes

    # What the servers remembered while the blog changed under them is not used now.
    live = Article.objects.live().in_blog(large_blog.pk)
    total = live.count()
    for sort in SORTS:
        order = ORDERINGS.get(sort, ("id",))
        for index in (1, total // 20, total // 10 - 3, total // 10 + 1):
            reply = server.request("GET", page_path(large_blog, sort, index))
            document = json.loads(reply.body)
            assert document["totalArticles"] == total
            expected = list(
                live.order_by(*order).values_list("id", flat=True)[(index - 1) * 10 : index * 10]
            )
            assert [article["id"] for article in document["_embedded"]] == expected, (sort, index)
