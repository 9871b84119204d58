"""Scheduled publication with the real parts (issue 29, points 1 and 5; issue 40, point 5): Celery
workers and beat on an own redis-server broker publish a scheduled draft within 60 s of its time,
exactly once, with two workers taking the same message and with a worker killed across the publish
time; a schedule through gunicorn holds no message past the broker's visibility timeout.

The test sends the ETA message a schedule sends (`drafts.publish_scheduled(draft_id,
publish_at_iso)` with a countdown) to the own broker, with a Celery app of its own: the test
process's settings use the in-memory broker.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
import redis
from celery import Celery
from django.utils import timezone

from articles.models import Article
from drafts.models import Draft
from tests.support.load import API, write_headers
from tests.support.webhooks import wait_until

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ON_TIME = 60.0  # seconds: the bound between a draft's time and its publication


def send_eta(broker, draft: Draft, *, copies: int = 1) -> None:
    """What drafts.scheduling.send_publish sends, `copies` times (a redelivery's duplicate)."""
    app = Celery("scheduler-test", broker=broker.url())
    countdown = max((draft.publish_at - timezone.now()).total_seconds(), 0)
    try:
        for _ in range(copies):
            app.send_task(
                "drafts.publish_scheduled",
                (draft.pk, draft.publish_at.isoformat()),
                countdown=countdown,
            )
    finally:
        app.close()


def scheduled_draft(blog, alice, seconds_ahead: float) -> Draft:
    return Draft.objects.create(
        blog=blog,
        author=alice,
        title="Goes out on time",
        content="Scheduled ahead",
        publish_at=timezone.now() + timedelta(seconds=seconds_ahead),
    )


def published(draft: Draft) -> Draft | None:
    draft.refresh_from_db()
    return draft if draft.published_at is not None else None


def assert_published_once(draft: Draft, blog) -> None:
    time.sleep(3)  # a second publication would come within a sweep or two
    draft.refresh_from_db()
    articles = list(Article.objects.filter(blog=blog))
    assert [a.title for a in articles] == ["Goes out on time"]
    assert draft.published_article_id == articles[0].pk
    assert draft.published_at >= draft.publish_at
    assert draft.published_at - draft.publish_at < timedelta(seconds=ON_TIME)
    blog.refresh_from_db()
    assert blog.article_count == 1


def test_two_workers_taking_the_same_message_publish_the_draft_once(
    start_celery, broker, blog, alice
):
    # No sweep in reach: the ETA message, delivered twice (as a redelivery would), does it.
    first = start_celery("worker", "--concurrency=1", DRAFTS_SWEEP_SECONDS="3600")
    second = start_celery("worker", "--concurrency=1", DRAFTS_SWEEP_SECONDS="3600")
    draft = scheduled_draft(blog, alice, 3)
    send_eta(broker, draft, copies=2)

    time.sleep(1)
    assert published(draft) is None  # not before its time
    wait_until(lambda: published(draft), timeout=ON_TIME, what="the scheduled publication")
    assert_published_once(draft, blog)
    logs = first.log() + second.log()
    # Both copies reached a worker (one each, or one both); one of them published.
    assert len(re.findall(r"Task drafts\.publish_scheduled\[[^\]]+\] received", logs)) >= 2, logs[
        -3000:
    ]


def test_a_worker_killed_across_the_publish_time_publishes_after_it_restarts(
    start_celery, broker, blog, alice
):
    worker = start_celery("worker", DRAFTS_SWEEP_SECONDS="1")
    start_celery("beat", DRAFTS_SWEEP_SECONDS="1")
    draft = scheduled_draft(blog, alice, 3)
    send_eta(broker, draft)
    wait_until(
        lambda: "drafts.publish_scheduled" in worker.log(),
        timeout=30,
        what="the worker to take the ETA message",
    )
    worker.kill()  # SIGKILL, the ETA message in its hands and unacknowledged

    time.sleep(max((draft.publish_at - timezone.now()).total_seconds(), 0) + 2)
    assert published(draft) is None  # nobody to publish it while the worker is down
    worker.start()

    wait_until(lambda: published(draft), timeout=ON_TIME, what="the publication after the restart")
    assert_published_once(draft, blog)


def test_a_worker_stopped_before_the_time_and_started_after_it_still_publishes(
    start_celery, broker, blog, alice
):
    # No beat: the ETA message, given back by the stopped worker, publishes the draft.
    worker = start_celery("worker", DRAFTS_SWEEP_SECONDS="3600")
    draft = scheduled_draft(blog, alice, 3)
    send_eta(broker, draft)
    wait_until(
        lambda: "drafts.publish_scheduled" in worker.log(),
        timeout=30,
        what="the worker to take the ETA message",
    )
    worker.stop()  # Celery's cold shutdown: the message goes back to the broker

    time.sleep(max((draft.publish_at - timezone.now()).total_seconds(), 0) + 1)
    assert published(draft) is None
    worker.start()

    wait_until(lambda: published(draft), timeout=ON_TIME, what="the publication after the restart")
    assert_published_once(draft, blog)


def held_publications(broker) -> int:
    """`drafts.publish_scheduled` messages the broker holds: waiting in the queue, or taken by a
    worker and not acknowledged (kombu's Redis transport keeps those in `unacked` until the ack,
    and gives them again after the visibility timeout). The sweep's own messages are not counted.
    """
    client = redis.Redis.from_url(broker.url())
    try:
        envelopes = client.lrange("celery", 0, -1) + client.hvals("unacked")
    finally:
        client.close()
    return sum(b'"task": "drafts.publish_scheduled"' in envelope for envelope in envelopes)


def test_a_schedule_through_the_api_holds_no_message_past_the_visibility_timeout(
    start_server, start_celery, broker, webhook_env, blog, alice, token_for
):
    """Before issue 40 a schedule sent its ETA message at once; a worker held it unacknowledged
    until its time, and once it was older than the visibility timeout the broker gave it to
    another worker as well (5 schedules, 10 messages). Now the message leaves only within
    DRAFTS_MESSAGE_WINDOW_SECONDS (half the timeout: 2 s here), handed over by beat's sweep."""
    env = {"CELERY_VISIBILITY_TIMEOUT_SECONDS": "4", "DRAFTS_SWEEP_SECONDS": "1"}
    server = start_server(**{**webhook_env, **env})
    first = start_celery("worker", "--concurrency=1", **env)
    start_celery("beat", **env)
    draft = Draft.objects.create(blog=blog, author=alice, title="Goes out on time", content="Hi")
    at = (timezone.now() + timedelta(seconds=15)).replace(microsecond=0)

    reply = server.request(
        "POST",
        f"{API}/blogs/{blog.pk}/drafts/{draft.pk}/publish",
        body={"publishAt": at.isoformat()},
        headers=write_headers(token_for(alice)),
    )
    assert reply.status == 202, reply.body[:500]

    time.sleep(6)  # past the visibility timeout, the time still 9 s away
    assert held_publications(broker) == 0  # no message yet, so none to give again
    # A worker that starts gives back every message held past the visibility timeout.
    second = start_celery("worker", "--concurrency=1", **env)

    wait_until(lambda: published(draft), timeout=ON_TIME, what="the scheduled publication")
    assert_published_once(draft, blog)
    logs = first.log() + second.log()
    received = re.findall(r"Task drafts\.publish_scheduled\[[^\]]+\] received", logs)
    assert len(received) == 1, logs[-3000:]
    assert held_publications(broker) == 0
