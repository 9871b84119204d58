"""Two gunicorn instances on two ports, one PostgreSQL and one Redis: one truth."""

from __future__ import annotations

from functools import partial

import pytest

from articles.models import Article
from tests.support.load import API, is_problem, post_from_processes, race, write_headers

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

LIMIT = 10


def test_a_write_through_one_server_is_read_through_the_other_with_its_etag(
    start_server, blog, alice, token_for
):
    first, second = start_server(), start_server()
    token = token_for(alice)
    created = first.request(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        body={"title": "Written on the first"},
        headers=write_headers(token),
    )
    assert created.status == 201
    path = f"{API}/blogs/{blog.pk}/articles/{created.json()['id']}"
    read = second.request("GET", path)
    assert read.status == 200 and read.headers["ETag"] == created.headers["ETag"]
    assert read.json()["title"] == "Written on the first"

    replaced = second.request(
        "PUT",
        path,
        body={"title": "Replaced on the second"},
        headers=write_headers(token, **{"If-Match": read.headers["ETag"]}),
    )
    assert replaced.status == 200
    new_etag = replaced.headers["ETag"]
    assert new_etag != read.headers["ETag"]
    assert first.request("GET", path, headers={"If-None-Match": new_etag}).status == 304
    stale = first.request(
        "PUT",
        path,
        body={"title": "Lost update?"},
        headers=write_headers(token, **{"If-Match": read.headers["ETag"]}),
    )
    assert stale.status == 412 and is_problem(stale)
    assert first.request("GET", path).json()["title"] == "Replaced on the second"


def test_the_write_rate_limit_is_shared_by_both_servers(start_server, blog, alice, token_for):
    limits = {"RATE_LIMIT_ENABLED": "true", "RATE_LIMIT_WRITE": f"{LIMIT}/min"}
    servers = [start_server(**limits), start_server(**limits)]
    token = token_for(alice)
    replies = [
        servers[n % 2].request(
            "POST",
            f"{API}/blogs/{blog.pk}/articles",
            body={"title": f"post {n}"},
            headers=write_headers(token),
        )
        for n in range(3 * LIMIT)
    ]
    statuses = [reply.status for reply in replies]
    assert statuses.count(201) == LIMIT, statuses
    assert set(statuses) == {201, 429}
    refused = [reply for reply in replies if reply.status == 429]
    assert all(int(reply.headers["Retry-After"]) > 0 for reply in refused)
    assert all(is_problem(reply) for reply in refused)
    assert Article.objects.filter(blog=blog).count() == LIMIT


def test_the_read_rate_limit_is_shared_by_both_servers(start_server, blog):
    limits = {"RATE_LIMIT_ENABLED": "true", "RATE_LIMIT_READ": f"{LIMIT}/min"}
    servers = [start_server(**limits), start_server(**limits)]
    statuses = [
        servers[n % 2].request("GET", f"{API}/blogs/{blog.pk}").status for n in range(3 * LIMIT)
    ]
    assert statuses.count(200) == LIMIT, statuses
    assert set(statuses) == {200, 429}


def test_an_idempotency_key_holds_across_servers(start_server, blog, alice, token_for):
    first, second = start_server(), start_server()
    token = token_for(alice)
    headers = write_headers(token, **{"Idempotency-Key": "retry-across-servers-1"})
    body = {"title": "Only once"}
    original = first.request("POST", f"{API}/blogs/{blog.pk}/articles", body=body, headers=headers)
    retried = second.request("POST", f"{API}/blogs/{blog.pk}/articles", body=body, headers=headers)
    assert original.status == retried.status == 201
    assert retried.json() == original.json()
    assert Article.objects.filter(blog=blog).count() == 1


def test_simultaneous_retries_on_two_servers_create_one_article(
    start_server, blog, alice, token_for
):
    first, second = start_server(), start_server()
    token = token_for(alice)
    for attempt in range(5):
        headers = write_headers(token, **{"Idempotency-Key": f"simultaneous-{attempt}"})
        body = {"title": f"attempt {attempt}"}
        replies = race(
            [
                partial(
                    server.request,
                    "POST",
                    f"{API}/blogs/{blog.pk}/articles",
                    body=body,
                    headers=headers,
                )
                for server in (first, second, first, second)
            ]
        )
        statuses = [reply.status for reply in replies]
        assert set(statuses) <= {201, 409}, statuses
        created = {reply.json()["id"] for reply in replies if reply.status == 201}
        assert len(created) == 1, statuses
        assert Article.objects.filter(blog=blog, title=body["title"]).count() == 1


def test_two_hundred_concurrent_posts_through_both_servers_all_land_once(
    start_server, blog, alice, token_for
):
    servers = [start_server(workers=2), start_server(workers=2)]
    processes, per_process, threads = 4, 50, 5
    tokens = [token_for(alice, name=f"process {n}") for n in range(processes)]
    results = post_from_processes(
        [server.port for server in servers], blog.pk, tokens, per_process, threads
    )
    assert [status for status, _ in results] == [201] * processes * per_process
    assert len({article_id for _, article_id in results}) == processes * per_process
    blog.refresh_from_db()
    live = Article.objects.filter(blog=blog, deleted_at__isnull=True).count()
    assert blog.article_count == live == processes * per_process


def test_a_revoked_token_stops_at_once_on_every_server_that_remembered_it(
    start_server, blog, alice, token_for
):
    """The token check remembers a token in the shared store (blogs.tokens): both servers wrote
    with it a moment ago; revoked by the operator's command, or its user deactivated, it is
    refused by both at the next request, not when their memory of it ends."""
    from django.core.management import call_command

    from blogs.models import AccessToken

    servers = [start_server(TOKEN_CACHE_SECONDS="600"), start_server(TOKEN_CACHE_SECONDS="600")]
    path = f"{API}/blogs/{blog.pk}/articles"

    def post(server, token):
        return server.request("POST", path, body={"title": "t"}, headers=write_headers(token))

    revoked, deactivated = token_for(alice, name="revoked"), token_for(alice, name="kept")
    for server in servers:
        assert [post(server, revoked).status, post(server, revoked).status] == [201, 201]
    call_command("revoke_token", AccessToken.objects.get(name="revoked").prefix)
    for server in servers:
        refused = post(server, revoked)
        assert refused.status == 401 and is_problem(refused)
        assert post(server, deactivated).status == 201
    alice.is_active = False
    alice.save()
    assert [post(server, deactivated).status for server in servers] == [401, 401]
