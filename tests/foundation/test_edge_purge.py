"""Purges of the edge cache (docs/decisions/edge-cache.md, "Purges"): each write records the
surrogate keys it changed in its transaction, and after the commit a worker soft-purges them on
every edge until each confirmed; with an edge down the write succeeds and its purge waits.

The edge is a real HTTP server on 127.0.0.1 (a thread of this process) that records the purges
it receives and answers 200, or 503, or refuses connections, as the test tells it. The task
functions are called directly (the worker, the broker and Varnish itself are tested as real
processes elsewhere); what the write hands to the broker is read back from the tests' in-memory
broker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from celery.exceptions import Retry
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from articles import services as article_services
from articles.models import Article, ArticleRevision
from blogs.models import Blog
from core import db_router, edge_purge, representations
from core.broker import app as broker_app
from core.models import EdgePurge
from core.tasks import purge_edge, relay_edge_purges
from tests.rest.conftest import HalClient
from tests.support.purge_endpoint import Edge
from tests.support.queries import content_queries

API = "/api/v1.2"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def edge(settings):
    edge = Edge()
    settings.EDGE_PURGE_URLS = [edge.url]
    yield edge
    edge.down()


@pytest.fixture
def api() -> HalClient:
    return HalClient()


def article_keys(article_id: int, blog_id: int) -> set[str]:
    """What an article's write changes (core.representations.article_changed)."""
    return {
        f"article:{article_id}",
        f"blog-articles:{blog_id}",
        "articles",
        f"article-comments:{article_id}",
    }


def blog_keys(blog_id: int) -> set[str]:
    """What a blog's own write changes (core.representations.blog_changed)."""
    return {f"blog:{blog_id}", f"blog-articles:{blog_id}", "articles", "blogs"}


def recorded() -> list[set[str]]:
    return [set(row.keys.split()) for row in EdgePurge.objects.order_by("pk")]


def broker_messages() -> list[tuple[str, list]]:
    """(task name, args) of each message waiting in the tests' in-memory broker, taken out."""
    found = []
    with broker_app().connection_for_read() as broker:
        channel = broker.default_channel
        while (message := channel.basic_get(queue="celery", no_ack=True)) is not None:
            found.append((message.headers["task"], message.decode()[0]))
    return found


def overdue() -> None:
    """Every row past its next attempt, as if the relay's wait had gone by."""
    EdgePurge.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))


# --- a write's purge -----------------------------------------------------------------------------


def test_a_committed_write_purges_exactly_its_keys_after_the_commit(
    api, blog, alice, token_for, edge, django_capture_on_commit_callbacks
):
    token = token_for(alice)
    broker_messages()  # whatever earlier tests left there
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.write(
            "POST", f"{API}/blogs/{blog.pk}/articles", {"title": "Hello"}, token=token
        )
    assert response.status_code == 201
    article_id = json.loads(response.content)["id"]
    (row,) = EdgePurge.objects.all()  # written in the write's transaction
    assert set(row.keys.split()) == article_keys(article_id, blog.pk)
    assert broker_messages() == []  # nothing handed over before the commit
    assert edge.purges == []

    for callback in callbacks:  # the commit
        callback()
    ((task, args),) = broker_messages()
    assert (task, args[0]) == ("core.purge_edge", row.pk)
    # With a replica (DATABASE_REPLICA_URL, PostgreSQL), the primary's WAL position read after
    # the commit, for the purge to wait until the replica has replayed the write; else nothing.
    replicated = db_router.replica_configured() and connection.vendor == "postgresql"
    assert len(args) == (2 if replicated else 1)

    assert purge_edge(*args) is True  # the worker's task
    assert edge.purges == [("/", article_keys(article_id, blog.pk))]
    assert not EdgePurge.objects.exists()


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_a_replace_or_a_delete_through_the_api_purges_the_article(
    api, article, alice, token_for, edge, method
):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"
    body = {"title": "Second", "content": "Changed"} if method == "PUT" else None
    response = api.write(method, url, body, token=token_for(alice))
    assert response.status_code in (200, 204)

    (row,) = EdgePurge.objects.all()
    purge_edge(row.pk)
    assert edge.keys() == [article_keys(article.pk, article.blog_id)]
    assert not EdgePurge.objects.exists()


def test_a_rolled_back_write_purges_nothing_and_leaves_no_row(
    blog, edge, django_capture_on_commit_callbacks
):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        article_services.article_create(blog=blog, title="Never")
        assert EdgePurge.objects.count() == 1  # written, inside the transaction
        raise RuntimeError("the request failed after the write")

    assert callbacks == []
    assert not Article.objects.exists()
    assert not EdgePurge.objects.exists()
    assert relay_edge_purges() == 0
    assert edge.purges == []


def test_a_refused_write_records_nothing(api, archived_blog, alice, token_for, edge):
    response = api.write(
        "POST", f"{API}/blogs/{archived_blog.pk}/articles", {"title": "No"}, token=token_for(alice)
    )
    assert response.status_code == 409
    assert not EdgePurge.objects.exists()


# --- the edge down -------------------------------------------------------------------------------


def test_with_the_edge_down_the_write_succeeds_and_its_purge_waits_for_the_relay(
    api, blog, alice, token_for, edge, settings
):
    edge.down()
    response = api.write(
        "POST", f"{API}/blogs/{blog.pk}/articles", {"title": "Hello"}, token=token_for(alice)
    )
    assert response.status_code == 201
    article_id = json.loads(response.content)["id"]

    (row,) = EdgePurge.objects.all()
    before = timezone.now()
    with pytest.raises(Retry):  # the task retries itself, later
        purge_edge(row.pk)
    row.refresh_from_db()
    assert row.attempts == 1
    # The relay leaves the row to the task's retry, until that is overdue.
    assert row.next_attempt_at >= before + timedelta(seconds=settings.EDGE_RELAY_AFTER_SECONDS)
    assert relay_edge_purges() == 0

    overdue()
    assert relay_edge_purges() == 0  # the edge is still down: the row stays, for a later run
    row.refresh_from_db()
    assert row.attempts == 2
    assert row.next_attempt_at > timezone.now()

    edge.up()
    overdue()
    assert relay_edge_purges() == 1
    assert edge.keys() == [article_keys(article_id, blog.pk)]
    assert not EdgePurge.objects.exists()


def test_an_edge_answering_an_error_has_not_purged(article, edge):
    edge.status = 503
    representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    (row,) = EdgePurge.objects.all()
    with pytest.raises(Retry):
        purge_edge(row.pk)
    assert EdgePurge.objects.filter(pk=row.pk).exists()

    edge.status = 200
    assert purge_edge(row.pk) is True
    assert not EdgePurge.objects.exists()


def test_every_edge_must_confirm(article, edge, settings):
    other = Edge()
    other.down()
    settings.EDGE_PURGE_URLS = [edge.url, other.url]
    try:
        representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
        (row,) = EdgePurge.objects.all()
        with pytest.raises(Retry):
            purge_edge(row.pk)
        assert len(edge.purges) == 1  # the edge that answered purged
        assert EdgePurge.objects.exists()  # the other did not: the row stays

        other.up()
        overdue()
        assert relay_edge_purges() == 1
        assert other.keys() == [article_keys(article.pk, article.blog_id)]
        assert not EdgePurge.objects.exists()
    finally:
        other.down()


def test_a_task_that_gave_up_leaves_the_row_to_the_relay(article, edge, settings):
    edge.down()
    representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    (row,) = EdgePurge.objects.all()
    purge_edge.push_request(retries=purge_edge.max_retries)  # as the worker runs its last retry
    try:
        assert purge_edge.run(row.pk) is False  # no retry left: no Retry raised
    finally:
        purge_edge.pop_request()
    row.refresh_from_db()
    assert row.next_attempt_at <= timezone.now() + timedelta(
        seconds=settings.EDGE_RELAY_AFTER_SECONDS
    )
    edge.up()
    overdue()
    assert relay_edge_purges() == 1
    assert not EdgePurge.objects.exists()


def test_a_row_the_relay_purged_is_done_for_the_task(article, edge):
    representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    (row,) = EdgePurge.objects.all()
    overdue()
    assert relay_edge_purges() == 1
    assert purge_edge(row.pk) is True  # its message came late: nothing left to do
    assert len(edge.purges) == 1


# --- the relay -----------------------------------------------------------------------------------


def test_the_relay_waits_for_the_tasks_then_purges_a_bounded_batch_in_one_request(
    blog, other_blog, edge
):
    first = article_services.article_create(blog=blog, title="One")
    second = article_services.article_create(blog=other_blog, title="Two")
    third = article_services.article_create(blog=blog, title="Three")
    assert relay_edge_purges() == 0  # new rows are the tasks' for EDGE_RELAY_AFTER_SECONDS
    assert edge.purges == []

    overdue()
    assert edge_purge.relay(limit=2) == 2
    # The two oldest rows, their keys merged into one request.
    assert edge.keys() == [article_keys(first.pk, blog.pk) | article_keys(second.pk, other_blog.pk)]
    assert recorded() == [article_keys(third.pk, blog.pk)]


def test_a_large_batch_is_split_into_header_lines_an_edge_accepts(db, edge):
    keys = [f"article:{number}" for number in range(1000)]
    edge_purge.record(keys)
    overdue()
    assert relay_edge_purges() == 1
    assert len(edge.purges) > 1
    assert set().union(*edge.keys()) == set(keys)


def test_a_row_leased_by_one_relay_is_not_taken_by_another(article, edge):
    representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    overdue()
    (leased,) = edge_purge.lease()  # one relay took it and is purging it

    assert edge_purge.lease() == []  # a second relay finds nothing due
    assert relay_edge_purges() == 0
    assert edge.purges == []
    assert EdgePurge.objects.get().pk == leased.pk


@pytest.mark.django_db(transaction=True)
def test_relays_racing_never_lease_the_same_row(settings):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions: PostgreSQL (SQLite's run one after another)")
    settings.EDGE_PURGE_URLS = ["http://127.0.0.1:9"]
    EdgePurge.objects.bulk_create(
        EdgePurge(keys=f"article:{n}", created_at=timezone.now(), next_attempt_at=timezone.now())
        for n in range(300)
    )
    start = threading.Barrier(4)
    taken: list[list[int]] = []

    def relay() -> None:
        try:
            start.wait()
            taken.append([row.pk for row in edge_purge.lease(limit=100)])
        finally:
            connection.close()

    threads = [threading.Thread(target=relay) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    everything = [pk for rows in taken for pk in rows]
    assert len(everything) == len(set(everything)) == 300
    # Each relay leases at most its limit. How the 300 split among the four depends on when
    # each one's scan meets rows the others hold (SKIP LOCKED passes them over): [0, 100, 100,
    # 100] and [40, 60, 100, 100] are both right; a row leased twice never is.
    assert all(len(rows) <= 100 for rows in taken)
    assert len(taken) == 4


# --- no edge -------------------------------------------------------------------------------------


def test_without_an_edge_a_write_records_nothing_and_runs_no_statement(article, settings):
    settings.EDGE_PURGE_URLS = []
    with content_queries(0):
        representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    assert not EdgePurge.objects.exists()

    settings.EDGE_PURGE_URLS = ["http://127.0.0.1:9"]
    with content_queries(1):  # the outbox row
        representations.article_changed(article_id=article.pk, blog_id=article.blog_id)
    assert recorded() == [article_keys(article.pk, article.blog_id)]


def test_the_relay_is_on_beats_schedule_only_with_an_edge():
    show = (
        "import json, config.settings.base as s; "
        "print(json.dumps({n: e['task'] for n, e in s.CELERY_BEAT_SCHEDULE.items()}))"
    )

    def schedule(**env: str) -> dict[str, str]:
        result = subprocess.run(
            [sys.executable, "-c", show],
            cwd=ROOT,
            env={
                "PATH": os.environ["PATH"],
                "SECRET_KEY": "settings-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
                **env,
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    assert "core.relay_edge_purges" not in schedule().values()
    assert schedule(EDGE_PURGE_URLS="http://127.0.0.1:6081")["edge-relay"] == (
        "core.relay_edge_purges"
    )


# --- every kind of write records its keys --------------------------------------------------------


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def test_a_comment_written_or_deleted_through_the_api_purges_the_articles_comments(
    api, article, alice, bob, token_for, edge
):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"
    created = api.write("POST", url, {"text": "Hi"}, token=token_for(bob))
    assert created.status_code == 201
    assert api.write("DELETE", created["Location"], token=token_for(alice)).status_code == 204
    assert recorded() == [{f"article-comments:{article.pk}"}] * 2

    overdue()
    assert relay_edge_purges() == 2
    assert edge.keys() == [{f"article-comments:{article.pk}"}]


def test_comments_edited_and_deleted_in_the_admin_are_purged(editor_client, article, alice, edge):
    comment = article_services.comment_create(article=article, author=alice, text="First!")
    EdgePurge.objects.all().delete()
    response = editor_client.post(
        f"/admin/articles/comment/{comment.pk}/change/",
        {"article": article.pk, "author": alice.pk, "text": "Edited"},
    )
    assert response.status_code == 302, response.content[:500]
    response = editor_client.post(f"/admin/articles/comment/{comment.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert recorded() == [{f"article-comments:{article.pk}"}] * 2


def test_a_blog_created_in_the_admin_is_purged_from_the_blog_list(editor_client, edge):
    response = editor_client.post(
        "/admin/blogs/blog/add/", {"title": "New", "description": "", "authors": []}
    )
    assert response.status_code == 302, response.content[:500]
    assert recorded() == [{"blogs"}]


def test_a_blog_edited_in_the_admin_is_purged(editor_client, blog, edge):
    response = editor_client.post(
        f"/admin/blogs/blog/{blog.pk}/change/",
        {"title": "Renamed", "description": "New", "authors": []},
    )
    assert response.status_code == 302, response.content[:500]
    assert recorded() == [blog_keys(blog.pk)]


def test_blogs_deleted_in_bulk_in_the_admin_are_purged(editor_client, blog, other_blog, edge):
    response = editor_client.post(
        "/admin/blogs/blog/",
        {"action": "delete_selected", "_selected_action": [blog.pk, other_blog.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not Blog.objects.filter(pk__in=[blog.pk, other_blog.pk]).exists()
    assert recorded() == [blog_keys(blog.pk), blog_keys(other_blog.pk)]


def test_an_article_edited_and_reverted_in_the_admin_is_purged(editor_client, article, edge):
    change = f"/admin/articles/article/{article.pk}/change/"
    assert editor_client.post(change, {"title": "Vandalised", "content": "spam"}).status_code == 302
    assert recorded() == [article_keys(article.pk, article.blog_id)]

    revision = ArticleRevision.objects.get(id=article.pk, version=1)
    revert = f"/admin/articles/article/{article.pk}/history/{revision.history_id}/"
    response = editor_client.post(revert, {"title": "First post", "content": "Hello"})
    assert response.status_code == 302
    assert Article.objects.get(pk=article.pk).title == "First post"
    assert recorded() == [article_keys(article.pk, article.blog_id)] * 2


def test_the_admins_article_actions_are_purged(editor_client, article, edge):
    response = editor_client.post(
        "/admin/articles/article/",
        {"action": "lock_articles", "_selected_action": [article.pk]},
    )
    assert response.status_code == 302
    assert recorded() == [article_keys(article.pk, article.blog_id)]


def test_seed_demo_purges_what_it_wrote(db, edge):
    call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    written = set().union(*recorded())
    demo_articles = Article.objects.filter(blog_id__in=[1, 3])
    assert {f"article:{pk}" for pk in demo_articles.values_list("pk", flat=True)} <= written
    assert blog_keys(3) <= written  # archived
    assert {"blog-articles:1", "articles"} <= written


def test_seed_bench_purges_the_blogs_it_changed(db, edge):
    call_command("seed_bench", articles=3, stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert blog_keys(1) in recorded() and blog_keys(2) in recorded()

    EdgePurge.objects.all().delete()
    call_command("seed_bench", articles=3, stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert recorded() == []  # nothing changed, nothing to purge

    call_command("seed_bench", articles=1, stdout=open(os.devnull, "w"))  # noqa: SIM115
    # Two articles tombstoned: their responses carry the blog's key (`article:<id> blog:<id>`).
    assert recorded() == [blog_keys(1)]
