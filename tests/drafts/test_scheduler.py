"""The scheduler in process (issue 29, point 1): the ETA task and beat's sweep publish a due draft
exactly once through the one guarded transition; a message of a draft rescheduled or unscheduled
since does nothing; an early message is sent again for the time that remains; the sweep takes a
bounded batch. The real worker and beat are in tests/reliability/test_scheduled_publishing.py."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from articles import services as article_services
from articles.etags import article_etag
from articles.models import Article
from drafts import publishing, scheduling, tasks
from drafts.models import Draft
from tests.support.webhooks import wait_until


def scheduled(blog, alice, *, at, title="On time", **fields) -> Draft:
    return Draft.objects.create(
        blog=blog, author=alice, title=title, content="Written ahead", publish_at=at, **fields
    )


def test_the_eta_task_publishes_a_due_draft_once(blog, alice):
    draft = scheduled(blog, alice, at=timezone.now() - timedelta(seconds=1))
    iso = draft.publish_at.isoformat()

    assert tasks.publish_scheduled(draft.pk, iso) is True
    assert tasks.publish_scheduled(draft.pk, iso) is False  # the message delivered again
    assert publishing.sweep() == 0

    article = Article.objects.get()
    assert (article.title, article.content, article.blog_id) == (
        "On time",
        "Written ahead",
        blog.pk,
    )
    draft.refresh_from_db()
    assert draft.published_at is not None
    assert draft.published_article_id == article.pk
    blog.refresh_from_db()
    assert blog.article_count == 1


def test_the_sweep_publishes_what_no_message_did_and_only_that(blog, alice):
    now = timezone.now()
    missed = scheduled(blog, alice, at=now - timedelta(minutes=5), title="Missed")
    later = scheduled(blog, alice, at=now + timedelta(hours=1), title="Later")
    deleted = scheduled(blog, alice, at=now - timedelta(minutes=1), title="Deleted", deleted_at=now)
    unscheduled = scheduled(blog, alice, at=None, title="Unscheduled")

    assert tasks.sweep_scheduled() == 1
    assert tasks.sweep_scheduled() == 0
    assert list(Article.objects.values_list("title", flat=True)) == ["Missed"]
    # The ETA message of the missed draft, arriving late, does nothing more.
    assert tasks.publish_scheduled(missed.pk, missed.publish_at.isoformat()) is False
    assert Article.objects.count() == 1
    for draft in (later, deleted, unscheduled):
        draft.refresh_from_db()
        assert draft.published_at is None


def test_a_rescheduled_drafts_old_message_does_nothing(blog, alice, sent):
    old_time = timezone.now() - timedelta(seconds=5)
    draft = scheduled(blog, alice, at=old_time)
    Draft.objects.filter(pk=draft.pk).update(publish_at=timezone.now() + timedelta(hours=2))

    assert tasks.publish_scheduled(draft.pk, old_time.isoformat()) is False
    assert not Article.objects.exists()
    assert sent == []  # nor is it sent again: its time is not the draft's
    draft.refresh_from_db()
    assert draft.published_at is None


def test_an_unscheduled_drafts_message_does_nothing(blog, alice, sent):
    when = timezone.now() - timedelta(seconds=5)
    draft = scheduled(blog, alice, at=when)
    assert publishing.unschedule(draft.pk) is True

    assert tasks.publish_scheduled(draft.pk, when.isoformat()) is False
    assert publishing.sweep() == 0
    assert not Article.objects.exists()
    assert sent == []
    draft.refresh_from_db()
    assert (draft.publish_at, draft.version) == (None, 2)


def test_an_early_message_is_sent_again_for_the_time_that_remains(blog, alice, sent):
    when = timezone.now() + timedelta(seconds=30)
    draft = scheduled(blog, alice, at=when)

    assert tasks.publish_scheduled(draft.pk, when.isoformat()) is False
    assert not Article.objects.exists()
    [(name, calls, countdown)] = sent
    assert (name, calls) == ("drafts.publish_scheduled", [(draft.pk, when.isoformat())])
    assert 25 < countdown <= 30


def test_send_publish_counts_down_to_the_time(blog, alice, sent):
    now = timezone.now()
    assert scheduling.send_publish(7, now + timedelta(seconds=90), now=now) == 1
    assert scheduling.send_publish(8, now - timedelta(seconds=3), now=now) == 1
    assert [(calls, countdown) for _, calls, countdown in sent] == [
        ([(7, (now + timedelta(seconds=90)).isoformat())], 90.0),
        ([(8, (now - timedelta(seconds=3)).isoformat())], 0),
    ]


def test_the_sweep_hands_over_a_draft_entering_the_window_once_and_it_is_published_once(
    blog, alice, sent, settings
):
    settings.DRAFTS_MESSAGE_WINDOW_SECONDS = 1
    draft = scheduled(blog, alice, at=timezone.now() + timedelta(seconds=1.8))
    iso = draft.publish_at.isoformat()

    assert publishing.sweep() == 0
    assert sent == []  # not within the window yet: no message a worker would hold
    wait_until(
        lambda: draft.publish_at - timezone.now() < timedelta(seconds=0.9),
        timeout=5,
        what="the time to come within the window",
    )
    assert publishing.sweep() == 0
    [(name, calls, countdown)] = sent
    assert (name, calls) == ("drafts.publish_scheduled", [(draft.pk, iso)])
    assert 0 < countdown <= 1
    assert publishing.sweep() == 0
    assert len(sent) == 1  # handed over once: the next runs send nothing more

    wait_until(lambda: timezone.now() >= draft.publish_at, timeout=5, what="the time")
    assert tasks.publish_scheduled(draft.pk, iso) is True  # the message, at its time
    assert tasks.publish_scheduled(draft.pk, iso) is False
    assert publishing.sweep() == 0
    assert Article.objects.count() == 1
    assert len(sent) == 1


def test_a_message_the_broker_refused_is_handed_over_by_the_next_sweep(
    blog, alice, sent, monkeypatch
):
    draft = scheduled(blog, alice, at=timezone.now() + timedelta(minutes=5))
    send = scheduling.send_publish
    monkeypatch.setattr(scheduling, "send_publish", lambda *args, **kwargs: 0)
    assert scheduling.hand_over(draft.pk, draft.publish_at) == 0
    draft.refresh_from_db()
    assert draft.queued_for is None  # the claim given back
    monkeypatch.setattr(scheduling, "send_publish", send)

    publishing.sweep()
    publishing.sweep()
    assert len(sent) == 1  # claimed by the first run: one message
    draft.refresh_from_db()
    assert draft.queued_for == draft.publish_at


def test_a_rescheduled_draft_is_handed_over_again_for_its_new_time(blog, alice, sent):
    draft = scheduled(blog, alice, at=timezone.now() + timedelta(minutes=5))
    assert scheduling.hand_over(draft.pk, draft.publish_at) == 1
    later = draft.publish_at + timedelta(minutes=3)
    Draft.objects.filter(pk=draft.pk).update(publish_at=later)

    publishing.sweep()
    assert [calls for _, calls, _ in sent] == [
        [(draft.pk, draft.publish_at.isoformat())],
        [(draft.pk, later.isoformat())],
    ]


def test_an_early_message_for_a_time_beyond_the_window_goes_back_to_the_sweep(
    blog, alice, sent, settings
):
    """Clocks that disagree by more than the window: no message held that long."""
    when = timezone.now() + timedelta(minutes=5)
    draft = scheduled(blog, alice, at=when, queued_for=when)
    settings.DRAFTS_MESSAGE_WINDOW_SECONDS = 60

    assert tasks.publish_scheduled(draft.pk, when.isoformat()) is False
    assert sent == []
    draft.refresh_from_db()
    assert draft.queued_for is None


def test_the_message_window_is_half_the_visibility_timeout():
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert settings.DRAFTS_MESSAGE_WINDOW_SECONDS == visibility // 2 == 1800


def test_the_sweep_is_bounded_and_takes_the_earliest_first(blog, alice):
    now = timezone.now()
    Draft.objects.bulk_create(
        Draft(blog=blog, author=alice, title=f"Due {i:03}", publish_at=now - timedelta(seconds=i))
        for i in range(publishing.SWEEP_BATCH + 5)
    )

    assert publishing.sweep(now) == publishing.SWEEP_BATCH
    left = Draft.objects.open().order_by("title")
    # The earliest (largest i) went first: the five latest are what the next run takes.
    assert [d.title for d in left] == [f"Due {i:03}" for i in range(5)]
    assert publishing.sweep(now) == 5
    assert Article.objects.count() == publishing.SWEEP_BATCH + 5


def test_a_draft_of_an_article_replaces_it_and_keeps_its_revision(blog, alice, article):
    article = Article.objects.select_related("blog").get(pk=article.pk)
    draft = scheduled(
        blog,
        alice,
        at=timezone.now() - timedelta(seconds=1),
        title="First post, revised",
        article=article,
        article_etag=article_etag(article),
    )

    assert publishing.sweep() == 1
    article.refresh_from_db()
    assert (article.title, article.version) == ("First post, revised", 2)
    assert list(article.history.values_list("title", flat=True)) == ["First post"]
    draft.refresh_from_db()
    assert draft.published_article_id == article.pk


def test_a_due_draft_whose_article_changed_is_unscheduled_not_published(blog, alice, article):
    etag = article_etag(Article.objects.select_related("blog").get(pk=article.pk))
    draft = scheduled(
        blog,
        alice,
        at=timezone.now() - timedelta(seconds=1),
        title="Stale edit",
        article=article,
        article_etag=etag,
    )
    article_services.article_replace(article=article, title="Changed meanwhile")

    assert publishing.sweep() == 0
    article.refresh_from_db()
    assert article.title == "Changed meanwhile"
    draft.refresh_from_db()
    assert (draft.published_at, draft.publish_at) == (None, None)
    assert publishing.sweep() == 0  # not tried again every run


def test_beat_runs_the_sweep_every_drafts_sweep_seconds():
    entry = settings.CELERY_BEAT_SCHEDULE["drafts-sweep"]
    assert entry == {"task": "drafts.sweep_scheduled", "schedule": 30.0}
    assert settings.DRAFTS_SWEEP_SECONDS == 30


@pytest.mark.django_db(transaction=True)
def test_attempts_at_the_same_moment_publish_once(blog, alice):
    """The message on two workers, the sweep and an editor's "publish now" at once: each in its
    own connection and transaction, released together; one publishes."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL): SQLite serialises every writer")
    draft = scheduled(blog, alice, at=timezone.now() - timedelta(seconds=1))
    iso = draft.publish_at.isoformat()
    attempts = [
        lambda: tasks.publish_scheduled(draft.pk, iso),
        lambda: tasks.publish_scheduled(draft.pk, iso),
        lambda: publishing.sweep(),
        lambda: publishing.publish(draft.pk),
    ]
    start = threading.Barrier(len(attempts))

    def attempt(call):
        try:
            start.wait(timeout=10)
            return int(call())
        finally:
            connection.close()

    with ThreadPoolExecutor(len(attempts)) as pool:
        results = list(pool.map(attempt, attempts))

    assert sorted(results) == [0, 0, 0, 1]
    assert Article.objects.filter(blog=blog).count() == 1
    blog.refresh_from_db()
    assert blog.article_count == 1
