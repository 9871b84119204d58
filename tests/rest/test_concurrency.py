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
from functools import partial

import pytest

from articles import services
from articles.models import Article
from blogs import services as blog_services
from blogs.models import Blog
from tests.support.load import race


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


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retry_while_the_first_post_is_still_running_is_409(live_server, django_user_model):
    """The first POST is held inside its transaction by a row lock another connection keeps on
    the blog; the retry arrives meanwhile (409); once released, the first completes and a later
    retry gets its answer."""
    import time

    import psycopg
    from django.db import connection

    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Slow")
    blog.authors.add(alice)
    _, token = blog_services.token_issue(user=alice, name="slow")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles"
    headers = {"X-Access-Token": token, "Idempotency-Key": "slow-1"}
    params = connection.get_connection_params()
    first: list = []

    with psycopg.connect(**params) as locker:
        locker.execute("SELECT 1 FROM blogs_blog WHERE id = %s FOR UPDATE", [blog.pk])
        thread = threading.Thread(
            target=lambda: first.append(http("POST", url, body={"title": "Once"}, headers=headers))
        )
        thread.start()
        with psycopg.connect(**params, autocommit=True) as observer:
            for _ in range(200):  # until the first POST waits for the lock (at most 10 s)
                waiting = observer.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE \"blogs_blog\"%%'"
                ).fetchone()[0]
                if waiting:
                    break
                time.sleep(0.05)
            assert waiting, "the first POST never reached the database"

        status, _, retry_body = http("POST", url, body={"title": "Once"}, headers=headers)
        assert status == 409
        assert json.loads(retry_body)["type"].endswith("/docs/problems/request-in-progress")
        locker.rollback()  # release the blog row

    thread.join()
    assert first[0][0] == 201
    later_status, _, later_body = http("POST", url, body={"title": "Once"}, headers=headers)
    assert later_status == 201
    assert later_body == first[0][2]
    assert Article.objects.filter(blog=blog).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_deletes_of_one_comment_give_exactly_one_204(live_server, django_user_model):
    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Race")
    blog.authors.add(alice)
    article = services.article_create(blog=blog, title="Start")
    _, token = blog_services.token_issue(user=alice, name="race")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles/{article.pk}/comments"

    for round_number in range(5):
        _, headers, _ = http(
            "POST", url, body={"text": f"round {round_number}"}, headers={"X-Access-Token": token}
        )
        comment_url = headers["Location"]
        delete = partial(http, "DELETE", comment_url, headers={"X-Access-Token": token})
        results = [status for status, _, _ in race([delete] * 4)]
        assert sorted(results) == [204, 404, 404, 404], round_number


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_unconditional_puts_each_keep_the_state_they_replaced(
    live_server, django_user_model
):
    """Six PUTs without If-Match at once: the last writer wins, and no state is lost on the
    way: the revisions and the article together hold the first state and every title sent,
    each once, with the versions 1 to 6 in a row."""
    from articles.models import ArticleRevision

    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Race")
    blog.authors.add(alice)
    article = services.article_create(blog=blog, title="Start")
    _, token = blog_services.token_issue(user=alice, name="race")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"
    titles = [f"writer {n}" for n in range(6)]
    barrier = threading.Barrier(len(titles))
    statuses: list[int] = []

    def put(title: str) -> None:
        barrier.wait()
        status, _, _ = http("PUT", url, body={"title": title}, headers={"X-Access-Token": token})
        statuses.append(status)

    threads = [threading.Thread(target=put, args=(title,)) for title in titles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [200] * len(titles)
    kept = list(ArticleRevision.objects.filter(id=article.pk).order_by("version"))
    current = Article.objects.get(pk=article.pk)
    assert [revision.version for revision in kept] == list(range(1, 7))
    assert current.version == 7
    assert kept[0].title == "Start"
    assert sorted([*(r.title for r in kept[1:]), current.title]) == sorted(titles)
    _, _, page = http("GET", f"{url}/revisions?pageSize=10")
    assert json.loads(page)["totalRevisions"] == 6


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_no_comment_is_created_on_an_article_a_racing_delete_removed(
    live_server, django_user_model
):
    """Many comment POSTs race one DELETE of their article, round after round: each comment
    answered 201 was made before the deletion (and announced before it), every other is 410."""
    from articles.models import Comment
    from webhooks import services as webhook_services
    from webhooks.models import Event

    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Race")
    blog.authors.add(alice)
    webhook_services.subscription_create(blog=blog, url="https://hooks.example/in", events=["*"])
    _, token = blog_services.token_issue(user=alice, name="race")
    headers = {"X-Access-Token": token}
    commenters = 24
    seen: set[int] = set()

    for round_number in range(4):
        article = services.article_create(blog=blog, title=f"round {round_number}")
        url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"
        comment = partial(http, "POST", f"{url}/comments", body={"text": "hi"}, headers=headers)
        delete = partial(http, "DELETE", url, headers=headers)
        # The DELETE in the middle of the comments, so that some run before it and some after.
        calls = [comment] * (commenters // 2) + [delete] + [comment] * (commenters // 2)
        results = race(calls)

        delete_status = results.pop(commenters // 2)[0]
        assert delete_status == 204, round_number
        statuses = [status for status, _, _ in results]
        assert set(statuses) <= {201, 410}, (round_number, statuses)
        seen.update(statuses)
        deleted_at = Article.objects.get(pk=article.pk).deleted_at
        created = list(Comment.objects.filter(article=article).values_list("created_at", flat=True))
        assert len(created) == statuses.count(201), round_number
        assert all(at < deleted_at for at in created), (round_number, deleted_at, created)
        events = Event.objects.filter(blog=blog).order_by("created_at")
        ours = [e.type for e in events if _article_announced(e.body) == article.pk]
        assert ours.count("comment.created") == len(created), round_number
        assert ours[-1] == "article.deleted", (round_number, ours)
    # The rounds raced: comments landed on both sides of the deletion.
    assert seen == {201, 410}


def _article_announced(message: dict) -> int:
    """The id of the article an outbox message is about (or its comment's article)."""
    data = message["data"]
    if message["type"].startswith("article."):
        return data["id"]
    return int(data["_links"]["doc:article"]["href"].rsplit("/", 1)[1])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_webhook_posts_fill_the_blogs_cap_exactly(
    live_server, django_user_model, settings
):
    """20 subscription POSTs at once on a blog with 15 of its 20 webhooks: exactly 5 are made,
    the other 15 are refused (409), whatever the order in which they count."""
    from webhooks import services as webhook_services
    from webhooks.models import Subscription

    settings.WEBHOOK_MAX_PER_BLOG = 20
    settings.RATE_LIMIT_WEBHOOK_WRITE = "1000/min"
    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Crowded")
    blog.authors.add(alice)
    for n in range(15):
        webhook_services.subscription_create(
            blog=blog, url=f"https://hooks.example/{n}", events=["*"]
        )
    _, token = blog_services.token_issue(user=alice, name="race")
    url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/webhooks"
    posts = [
        partial(
            http,
            "POST",
            url,
            body={"url": f"https://hooks.example/new/{n}", "events": ["*"]},
            headers={"X-Access-Token": token},
        )
        for n in range(20)
    ]

    results = race(posts)

    statuses = sorted(status for status, _, _ in results)
    assert statuses == [201] * 5 + [409] * 15
    for status, _, payload in results:
        if status == 409:
            assert json.loads(payload)["type"].endswith("/docs/problems/webhook-limit-reached")
    assert Subscription.objects.filter(blog=blog).count() == 20
