"""Concurrent writers on one article and one blog lose nothing (PostgreSQL, live server)."""

from __future__ import annotations

from functools import partial

import pytest

from articles import services as article_services
from articles.models import Article
from blogs.models import Blog
from tests.support.load import API, post_from_processes, race, write_headers
from tests.support.servers import http_request

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WRITERS = 8
ROUNDS = 3


def article_path(article: Article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def live_article_count(blog: Blog) -> int:
    return Article.objects.filter(blog=blog, deleted_at__isnull=True).count()


def test_of_concurrent_if_match_writers_exactly_one_wins_each_version(
    live_port, article, alice, token_for
):
    token = token_for(alice)
    path = article_path(article)
    version_before = article.version
    for round_number in range(ROUNDS):
        current = http_request(live_port, "GET", path)
        assert current.status == 200
        etag = current.headers["ETag"]
        bodies = [
            {"title": f"round {round_number} writer {n}", "content": f"text of writer {n}"}
            for n in range(WRITERS)
        ]
        replies = race(
            [
                partial(
                    http_request,
                    live_port,
                    "PUT",
                    path,
                    body=body,
                    headers=write_headers(token, **{"If-Match": etag}),
                )
                for body in bodies
            ]
        )
        statuses = [reply.status for reply in replies]
        assert sorted(statuses) == [200] + [412] * (WRITERS - 1), statuses
        winner = statuses.index(200)
        final = http_request(live_port, "GET", path)
        assert final.json()["title"] == bodies[winner]["title"]
        assert final.json()["content"] == bodies[winner]["content"]
        assert final.headers["ETag"] == replies[winner].headers["ETag"] != etag
    article.refresh_from_db()
    assert article.version == version_before + ROUNDS


def test_two_hundred_concurrent_posts_from_several_processes_all_land_once(
    live_port, blog, alice, token_for
):
    processes, per_process, threads = 4, 50, 5
    # One token per process: the write rate limit is per token, and this is not a test of it.
    tokens = [token_for(alice, name=f"process {n}") for n in range(processes)]
    results = post_from_processes([live_port], blog.pk, tokens, per_process, threads)
    assert [status for status, _ in results] == [201] * processes * per_process
    ids = [article_id for _, article_id in results]
    assert len(set(ids)) == processes * per_process
    blog.refresh_from_db()
    assert blog.article_count == live_article_count(blog) == processes * per_process
    page = http_request(live_port, "GET", f"{API}/blogs/{blog.pk}/articles?pageSize=100")
    assert page.json()["totalArticles"] == processes * per_process


@pytest.mark.parametrize("conditional", [False, True], ids=["unconditional", "if-match"])
def test_concurrent_delete_and_put_never_fail_and_never_resurrect(
    live_port, blog, alice, token_for, conditional
):
    token = token_for(alice)
    for round_number in range(5):
        article = article_services.article_create(blog=blog, title=f"doomed {round_number}")
        path = article_path(article)
        extra = {}
        if conditional:
            extra["If-Match"] = http_request(live_port, "GET", path).headers["ETag"]
        headers = write_headers(token, **extra)
        put = partial(
            http_request, live_port, "PUT", path, body={"title": "edited"}, headers=headers
        )
        delete = partial(http_request, live_port, "DELETE", path, headers=headers)
        replies = race([delete, put, put, delete])
        deletes, puts = (
            [replies[0].status, replies[3].status],
            [replies[1].status, replies[2].status],
        )
        assert all(status < 500 for status in deletes + puts), replies
        assert deletes.count(204) <= 1 and set(deletes) <= {204, 410, 412}
        assert set(puts) <= {200, 410, 412}
        if conditional:
            # One ETag, four writers: exactly one of them wins.
            assert deletes.count(204) + puts.count(200) == 1, (deletes, puts)
        if 204 in deletes:
            for method in ("GET", "PUT", "DELETE"):
                reply = http_request(
                    live_port, method, path, body={"title": "back?"}, headers=write_headers(token)
                )
                assert reply.status == 410, (method, reply.status)
            assert Article.objects.get(pk=article.pk).deleted_at is not None
    blog.refresh_from_db()
    assert blog.article_count == live_article_count(blog)
