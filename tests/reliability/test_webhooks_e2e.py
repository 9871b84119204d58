"""Webhooks end to end with the real parts (issue 19, point 6): gunicorn takes the writes, a
Celery worker (and beat, the relay) delivers through an own redis-server broker to a receiver on
127.0.0.1, and every message is verified with the `standardwebhooks` library.

Each test subscribes through the REST API, writes through gunicorn and then waits, bounded, for
what the receiver gets; it also reads the attempts the service recorded
(GET .../webhooks/{id}/deliveries) and checks that they agree with what the receiver saw.
"""

from __future__ import annotations

import time
from collections import defaultdict
from urllib.parse import urlsplit

import pytest
from django.db import transaction
from standardwebhooks import Webhook

from articles import services as article_services
from tests.support.load import API, post_from_processes, write_headers
from tests.support.servers import GunicornServer
from tests.support.webhooks import Hold, Received, Receiver, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Bounds for the waits: deliveries take a second or so; retries back off from 1 s (the harness's
# WEBHOOK_RETRY_BASE_SECONDS); the relay runs every second. Generous for a busy shared machine.
DELIVERY = 60.0


def subscribe(
    server: GunicornServer, blog_id: int, token: str, receiver: Receiver, events=("*",)
) -> dict:
    """A subscription through the REST API; the receiver then verifies every message with its
    secret, as an integrator would, when it arrives."""
    reply = server.request(
        "POST",
        f"{API}/blogs/{blog_id}/webhooks",
        body={"url": f"{receiver.url}/hook", "events": list(events), "active": True},
        headers=write_headers(token),
    )
    assert reply.status == 201, reply.body[:500]
    hook = reply.json()
    assert hook["secret"].startswith("whsec_")
    receiver.verify = Webhook(hook["secret"]).verify
    return hook


def post_article(server: GunicornServer, blog_id: int, token: str, title: str) -> int:
    reply = server.request(
        "POST",
        f"{API}/blogs/{blog_id}/articles",
        body={"title": title, "content": "written for a webhook"},
        headers=write_headers(token),
    )
    assert reply.status == 201, reply.body[:500]
    return reply.json()["id"]


def message(request: Received) -> dict:
    """The verified body of a received request (the verification failing fails the test)."""
    if isinstance(request.verified, Exception):
        raise AssertionError(f"{request.webhook_id}: signature refused: {request.verified!r}")
    assert isinstance(request.verified, dict), request.verified
    return request.verified


def answered(status: int):
    return lambda seen: [r for r in seen if r.status == status]


def recorded_attempts(server: GunicornServer, blog_id: int, hook: dict, token: str) -> dict:
    """{webhook-id: [attempt statuses, in order]} from GET .../webhooks/{id}/deliveries."""
    path = f"{API}/blogs/{blog_id}/webhooks/{hook['id']}/deliveries?pageSize=100"
    attempts: dict[str, list[int | None]] = {}
    while path:
        reply = server.request("GET", path, headers=write_headers(token))
        assert reply.status == 200, reply.body[:500]
        page = reply.json()
        deliveries = page["_embedded"]
        if isinstance(deliveries, dict):
            deliveries = next(iter(deliveries.values()))
        for delivery in deliveries:
            event_id = delivery["eventId"]
            statuses = [attempt.get("statusCode") for attempt in delivery["attempts"]]
            attempts[event_id] = attempts.get(event_id, []) + statuses
        following = urlsplit(page.get("_links", {}).get("nextPage", {}).get("href", ""))
        path = f"{following.path}?{following.query}" if following.path else None
    return attempts


@pytest.fixture
def stack(start_server, start_celery, receiver, webhook_env, alice, blog, token_for):
    """gunicorn, a worker and beat on the own broker; alice's token."""
    server = start_server(**webhook_env)
    worker = start_celery("worker")
    start_celery("beat")
    return server, worker, token_for(alice)


def test_a_receiver_failing_twice_gets_the_event_on_the_third_attempt_with_the_same_id(
    stack, receiver, blog
):
    server, _, token = stack
    hook = subscribe(server, blog.pk, token, receiver)
    receiver.answer(500, 500)
    article_id = post_article(server, blog.pk, token, "third time lucky")

    receiver.wait_for(answered(200), timeout=DELIVERY, what="an attempt answered 200")
    time.sleep(3)  # a fourth attempt would come within the backoff's first steps
    seen = receiver.received()
    assert [r.status for r in seen] == [500, 500, 200]
    assert len({r.webhook_id for r in seen}) == 1
    bodies = [message(r) for r in seen]
    assert bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["type"] == "article.created"
    assert bodies[0]["data"]["id"] == article_id
    assert all(r.headers["user-agent"].startswith("blog-service-webhooks") for r in seen)
    assert all(r.headers["content-type"].startswith("application/json") for r in seen)
    recorded = recorded_attempts(server, blog.pk, hook, token)
    assert recorded == {seen[0].webhook_id: [500, 500, 200]}


def test_a_worker_killed_in_the_middle_of_a_delivery_delivers_it_after_it_restarts(
    stack, receiver, blog
):
    server, worker, token = stack
    hook = subscribe(server, blog.pk, token, receiver)
    hold = Hold(status=200)
    receiver.answer(hold)
    article_id = post_article(server, blog.pk, token, "cut short")

    assert hold.arrived.wait(DELIVERY), "the delivery never reached the receiver"
    worker.kill()  # SIGKILL to the worker and its pool while the receiver holds the request
    hold.release()
    worker.start()

    receiver.wait_for(answered(200), timeout=DELIVERY * 2, what="the delivery after the restart")
    seen = receiver.received()
    assert seen[0].status is None  # the killed worker never got its answer
    assert len({r.webhook_id for r in seen}) == 1
    assert message(seen[-1])["type"] == "article.created"
    assert message(seen[-1])["data"]["id"] == article_id
    recorded = wait_until(
        lambda: _delivered(recorded_attempts(server, blog.pk, hook, token)),
        timeout=10,
        what="the delivery recorded as answered 200",
    )
    assert list(recorded) == [seen[0].webhook_id]


def _delivered(recorded: dict) -> dict:
    return recorded if recorded and all(s and s[-1] == 200 for s in recorded.values()) else {}


def test_a_write_while_the_broker_is_down_succeeds_and_is_delivered_when_it_returns(
    stack, receiver, broker, blog
):
    server, _, token = stack
    hook = subscribe(server, blog.pk, token, receiver)
    broker.stop()
    started = time.monotonic()
    article_id = post_article(server, blog.pk, token, "written with no broker")
    assert time.monotonic() - started < 5, "the write waited for the broker"
    time.sleep(1)
    assert receiver.received() == []  # nothing can travel with the broker gone

    broker.start()  # empty: the message the service could not hand over exists only in the outbox
    receiver.wait_for(answered(200), timeout=DELIVERY * 2, what="the relayed message")
    time.sleep(2)
    seen = receiver.received()
    assert len({r.webhook_id for r in seen}) == 1
    assert message(seen[-1])["data"]["id"] == article_id
    assert _delivered(recorded_attempts(server, blog.pk, hook, token))


def test_writes_that_roll_back_send_nothing(stack, receiver, blog, alice):
    server, _, token = stack
    hook = subscribe(server, blog.pk, token, receiver)
    article_id = post_article(server, blog.pk, token, "the one article")
    receiver.wait_for(answered(200), timeout=DELIVERY, what="article.created")
    path = f"{API}/blogs/{blog.pk}/articles/{article_id}"
    etag = server.request("GET", path).headers["ETag"]

    stale = server.request(
        "PUT",
        path,
        body={"title": "lost update"},
        headers=write_headers(token, **{"If-Match": '"not-the-current-one"'}),
    )
    assert stale.status == 412
    refused = server.request(
        "POST", f"{API}/blogs/{blog.pk}/articles", body={"title": ""}, headers=write_headers(token)
    )
    assert refused.status == 422
    with pytest.raises(RuntimeError), transaction.atomic():
        article_services.article_create(blog=blog, title="rolled back")
        raise RuntimeError("the transaction fails after the write")

    # A write that commits afterwards: once its message is in, any message of the failed writes
    # would have come too (the relay runs every second; it comes from the same outbox).
    replaced = server.request(
        "PUT",
        path,
        body={"title": "the update that counts"},
        headers=write_headers(token, **{"If-Match": etag}),
    )
    assert replaced.status == 200
    receiver.wait_for(
        lambda seen: len(answered(200)(seen)) >= 2, timeout=DELIVERY, what="article.replaced"
    )
    time.sleep(3)
    messages = [message(r) for r in receiver.received()]
    assert [m["type"] for m in messages] == ["article.created", "article.replaced"]
    assert messages[1]["data"]["title"] == "the update that counts"
    assert len(recorded_attempts(server, blog.pk, hook, token)) == 2


def test_a_thousand_writes_from_eight_clients_give_a_thousand_verified_events(
    start_server, start_celery, receiver, webhook_env, alice, blog, token_for
):
    server = start_server(**webhook_env)
    # A thousand deliveries queue up for a while: the relay must not take them for lost.
    patient = {"WEBHOOK_REQUEUE_AFTER_SECONDS": "600"}
    start_celery("worker", "--concurrency=4", **patient)
    start_celery("beat", **patient)
    hook = subscribe(server, blog.pk, token_for(alice), receiver, events=["article.created"])
    clients, per_client = 8, 125
    tokens = [token_for(alice, name=f"client {n}") for n in range(clients)]

    results = post_from_processes([server.port], blog.pk, tokens, per_client, threads=1)
    assert [status for status, _ in results] == [201] * clients * per_client
    written = {article_id for _, article_id in results}
    assert len(written) == clients * per_client

    def distinct(seen: list[Received]) -> int:
        return len({r.webhook_id for r in seen if r.status == 200})

    receiver.wait_for(
        lambda seen: distinct(seen) >= len(written), timeout=300, what="1,000 distinct events"
    )
    time.sleep(3)  # late duplicates, if any, come now
    articles_by_id: dict[str, set[int]] = defaultdict(set)
    for request in receiver.received():
        body = message(request)  # every signature verified
        assert body["type"] == "article.created"
        articles_by_id[request.webhook_id].add(body["data"]["id"])
    # A duplicate only ever with the same id: one article per webhook-id, one id per article.
    assert all(len(ids) == 1 for ids in articles_by_id.values())
    received_articles = [next(iter(ids)) for ids in articles_by_id.values()]
    assert len(received_articles) == len(set(received_articles)) == len(written)
    assert set(received_articles) == written  # none missing, none invented

    recorded = recorded_attempts(server, blog.pk, hook, token_for(alice))
    assert set(recorded) == set(articles_by_id)
    assert all(statuses[-1] == 200 for statuses in recorded.values())
