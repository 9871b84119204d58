"""Delivering a message to a real receiver on 127.0.0.1: the Standard Webhooks headers and
signature (verified with the `standardwebhooks` library), what is retried and what ends a
delivery, the record of every attempt, idempotence, redelivery and disabling.

The delivery task's function is called here directly; the worker and the broker are tested as
real processes in tests/reliability."""

from __future__ import annotations

import json
import signal
import socket
import sys
from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from articles import services as article_services
from webhooks import services
from webhooks.models import Delivery, Subscription
from webhooks.sender import MAX_RESPONSE_BYTES, USER_AGENT
from webhooks.tasks import deliver

from .conftest import Answer

API = "/api/v1.2"


def one_delivery() -> Delivery:
    (delivery,) = Delivery.objects.all()
    return delivery


def make_due(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def verified(received, secret: str) -> dict:
    """The message, after `standardwebhooks` verified its signature, id and timestamp."""
    return Webhook(secret).verify(received.body, received.headers)


def test_a_message_is_signed_per_standard_webhooks(blog, webhook, receiver):
    article = article_services.article_create(blog=blog, title="Signed", content="Text")
    delivery = one_delivery()

    deliver(delivery.pk)  # the task's function, in this process

    (received,) = receiver.received
    message = verified(received, webhook.plain_secret)
    assert message["type"] == "article.created"
    assert message["data"]["id"] == article.pk
    assert message["data"]["title"] == "Signed"
    assert received.headers["webhook-id"] == delivery.event_id
    assert received.headers["content-type"] == "application/json"
    assert received.headers["user-agent"] == USER_AGENT
    assert received.path == "/hooks/in"
    assert received.headers["webhook-signature"].startswith("v1,")
    with pytest.raises(Exception, match="signature"):
        Webhook("whsec_" + "QUFB" * 8).verify(received.body, received.headers)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("succeeded", 1)


def test_during_a_rotation_both_secrets_sign(api, blog, alice, token_for, webhook, receiver):
    response = api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/webhooks/{webhook.pk}/rotate-secret",
        token=token_for(alice),
    )
    new_secret = json.loads(response.content)["secret"]
    article_services.article_create(blog=blog, title="Both")

    deliver(one_delivery().pk)

    (received,) = receiver.received
    assert len(received.headers["webhook-signature"].split(" ")) == 2
    verified(received, webhook.plain_secret)
    verified(received, new_secret)


def test_after_a_day_only_the_new_secret_signs(blog, webhook, receiver):
    _rotated, new_secret = services.subscription_rotate_secret(subscription=webhook)
    Subscription.objects.filter(pk=webhook.pk).update(
        previous_secret_expires_at=timezone.now() - timedelta(seconds=1)
    )
    article_services.article_create(blog=blog, title="One")

    deliver(one_delivery().pk)

    (received,) = receiver.received
    assert " " not in received.headers["webhook-signature"]
    verified(received, new_secret)
    with pytest.raises(Exception, match="signature"):
        verified(received, webhook.plain_secret)


def test_500_twice_then_200_is_delivered_on_the_third_attempt_with_the_same_id(
    blog, webhook, receiver, settings
):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 30
    receiver.answer(Answer(500, b"down"), Answer(503, b"still down"), Answer(200, b"thanks"))
    article_services.article_create(blog=blog, title="Retried")
    delivery = one_delivery()

    for expected_wait in (15, 30):  # the first backoffs, with jitter in their upper half
        before = timezone.now()
        deliver(delivery.pk)
        delivery.refresh_from_db()
        assert delivery.status == "pending"
        wait = (delivery.next_attempt_at - before).total_seconds()
        assert expected_wait <= wait <= 2 * expected_wait + 1
        deliver(delivery.pk)  # not due yet: nothing is sent
        assert len(receiver.received) == (1 if expected_wait == 15 else 2)
        make_due(delivery)
    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "succeeded"
    ids = {r.headers["webhook-id"] for r in receiver.received}
    assert ids == {delivery.event_id}
    for received in receiver.received:
        verified(received, webhook.plain_secret)
    attempts = list(delivery.attempts.all())
    assert [a.status_code for a in attempts] == [500, 503, 200]
    assert [a.response_excerpt for a in attempts] == ["down", "still down", "thanks"]
    assert all(a.duration_ms >= 0 and a.started_at for a in attempts)
    assert not Subscription.objects.get().failing_since


def test_a_delivered_message_is_not_sent_again(blog, webhook, receiver):
    article_services.article_create(blog=blog, title="Once")
    delivery = one_delivery()

    deliver(delivery.pk)
    make_due(delivery)
    deliver(delivery.pk)  # a duplicate task (a relay, a redelivered message)

    assert len(receiver.received) == 1
    assert delivery.attempts.count() == 1


def test_a_delivery_held_by_another_worker_is_not_sent_twice(blog, webhook, receiver):
    article_services.article_create(blog=blog, title="Leased")
    delivery = one_delivery()
    Delivery.objects.filter(pk=delivery.pk).update(
        leased_until=timezone.now() + timedelta(seconds=30)
    )

    deliver(delivery.pk)

    assert receiver.received == []


def test_an_attempt_cut_short_by_a_stopping_worker_gives_its_lease_back(blog, webhook, receiver):
    # A stopping worker cancels the task in hand: a signal whose handler raises SystemExit (as
    # billiard's does in a pool process) interrupts the POST. The delivery is not recorded as
    # attempted and not held, so the message the broker hands out again is sent at once
    # (tests/reliability/test_clean_stops.py stops the real worker).
    receiver.answer(Answer(200, delay=2), Answer(200))
    article_services.article_create(blog=blog, title="Cut short")
    delivery = one_delivery()
    previous = signal.signal(signal.SIGALRM, lambda *_: sys.exit(-(256 - signal.SIGQUIT)))
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(SystemExit):
            deliver(delivery.pk)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.leased_until, delivery.attempts.count()) == (
        "pending",
        None,
        0,
    )
    deliver(delivery.pk)  # the same message, handed out again
    assert one_delivery().status == "succeeded"
    assert len(receiver.received) == 2


@pytest.mark.parametrize(
    ("answer", "retried"),
    [
        (Answer(500), True),
        (Answer(502), True),
        (Answer(408), True),
        (Answer(429), True),
        (Answer(400), False),
        (Answer(401), False),
        (Answer(404), False),
        (Answer(410), False),
        (Answer(422), False),
        # A redirect is not followed: the subscriber answered, and not with a success.
        (Answer(302, headers={"Location": "http://127.0.0.1:1/elsewhere"}), False),
    ],
)
def test_which_answers_are_retried(blog, webhook, receiver, answer, retried):
    receiver.answer(answer)
    article_services.article_create(blog=blog, title="Classified")
    delivery = one_delivery()

    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == ("pending" if retried else "failed")
    assert delivery.last_error == f"HTTP {answer.status}"
    assert len(receiver.received) == 1


def test_retry_after_is_honoured(blog, webhook, receiver, settings):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 1
    receiver.answer(Answer(429, headers={"Retry-After": "120"}))
    article_services.article_create(blog=blog, title="Later")
    delivery = one_delivery()
    before = timezone.now()

    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "pending"
    assert (delivery.next_attempt_at - before).total_seconds() >= 119


def test_a_timeout_is_retried_and_recorded(blog, webhook, receiver, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    receiver.answer(Answer(200, delay=2))
    article_services.article_create(blog=blog, title="Slow")
    delivery = one_delivery()

    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "pending"
    (attempt,) = delivery.attempts.all()
    assert attempt.status_code is None
    assert attempt.error == "Timed out after 1 s."
    assert 900 <= attempt.duration_ms < 3000


def test_a_refused_connection_is_retried(blog):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]  # nothing listens there once the probe is closed
    services.subscription_create(blog=blog, url=f"http://127.0.0.1:{closed_port}/", events=["*"])
    article_services.article_create(blog=blog, title="Nobody home")
    delivery = one_delivery()

    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "pending"
    assert "ConnectionRefusedError" in delivery.attempts.get().error


def test_at_most_64_kib_of_the_answer_is_read_and_1_kib_kept(blog, webhook, receiver):
    receiver.answer(Answer(200, b"x" * (MAX_RESPONSE_BYTES * 4)))
    article_services.article_create(blog=blog, title="Chatty")

    deliver(one_delivery().pk)

    attempt = one_delivery().attempts.get()
    assert attempt.succeeded
    assert attempt.response_excerpt == "x" * 1024


def test_retries_end_when_the_retry_period_is_over(blog, webhook, receiver):
    receiver.answer(Answer(500), Answer(500))
    article_services.article_create(blog=blog, title="Too late")
    delivery = one_delivery()
    deliver(delivery.pk)
    Delivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now(), retry_until=timezone.now() - timedelta(seconds=1)
    )

    deliver(delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == "failed"
    assert delivery.last_error == "Retried for as long as allowed."
    assert len(receiver.received) == 1


def test_a_webhook_failing_for_the_whole_period_is_disabled_and_says_why(
    api, blog, alice, token_for, webhook, receiver, settings
):
    settings.WEBHOOK_DISABLE_AFTER_HOURS = 1
    receiver.answer(Answer(500), Answer(500))
    article_services.article_create(blog=blog, title="First failure")
    delivery = one_delivery()
    deliver(delivery.pk)
    assert Subscription.objects.get().active  # failing, not for long enough
    Subscription.objects.update(failing_since=timezone.now() - timedelta(hours=1, seconds=1))
    make_due(delivery)

    deliver(delivery.pk)

    read = json.loads(
        api.get(
            f"{API}/blogs/{blog.pk}/webhooks/{webhook.pk}",
            headers={"X-Access-Token": token_for(alice)},
        ).content
    )
    assert read["active"] is False
    assert "Every delivery since" in read["disabledReason"]
    assert "HTTP 500" in read["disabledReason"]
    assert read["disabledAt"] is not None
    # Nothing more is sent to it, nor announced for it.
    article_services.article_create(blog=blog, title="Unheard")
    assert Delivery.objects.count() == 1
    make_due(delivery)
    deliver(delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_error) == ("failed", "The subscription is disabled.")
    assert len(receiver.received) == 2


def test_a_success_clears_the_failing_streak(blog, webhook, receiver):
    receiver.answer(Answer(500), Answer(200))
    article_services.article_create(blog=blog, title="Recovering")
    delivery = one_delivery()
    deliver(delivery.pk)
    assert Subscription.objects.get().failing_since is not None
    make_due(delivery)
    deliver(delivery.pk)
    assert Subscription.objects.get().failing_since is None


def test_the_deliveries_and_their_attempts_are_listed_and_a_failed_one_sent_again(
    api, blog, alice, token_for, webhook, receiver, django_capture_on_commit_callbacks
):
    token = token_for(alice)
    receiver.answer(Answer(400, b"bad signature?"))
    article_services.article_create(blog=blog, title="Rejected")
    delivery = one_delivery()
    deliver(delivery.pk)
    url = f"{API}/blogs/{blog.pk}/webhooks/{webhook.pk}/deliveries"

    page = json.loads(api.get(url, headers={"X-Access-Token": token}).content)

    assert page["totalDeliveries"] == 1
    (listed,) = page["_embedded"]
    assert listed["eventId"] == delivery.event_id
    assert (listed["eventType"], listed["status"], listed["attemptCount"]) == (
        "article.created",
        "failed",
        1,
    )
    (attempt,) = listed["attempts"]
    assert (attempt["statusCode"], attempt["response"], attempt["succeeded"]) == (
        400,
        "bad signature?",
        False,
    )
    assert listed["lastError"] == "HTTP 400"
    redeliver = listed["_links"]["doc:redeliver"]["href"]

    with django_capture_on_commit_callbacks(execute=True):
        response = api.write("POST", redeliver, token=token)

    assert response.status_code == 202
    assert json.loads(response.content)["status"] == "pending"
    delivery.refresh_from_db()
    assert delivery.enqueued_at is not None  # handed to the broker after the commit
    deliver(delivery.pk)
    assert [r.headers["webhook-id"] for r in receiver.received] == [delivery.event_id] * 2
    delivery.refresh_from_db()
    assert delivery.status == "succeeded"
    again = api.write("POST", redeliver, token=token)
    assert again.status_code == 409
    assert json.loads(again.content)["type"].endswith("/docs/problems/not-redeliverable")
    single = json.loads(
        api.get(listed["_links"]["self"]["href"], headers={"X-Access-Token": token}).content
    )
    assert [a["statusCode"] for a in single["attempts"]] == [400, 200]
    assert "doc:redeliver" not in single["_links"]


def test_the_by_hand_verification_of_the_docs_accepts_the_message(blog, webhook, receiver):
    """docs/webhooks.md, "Verifying the signature", by hand."""
    import base64
    import hashlib
    import hmac

    article_services.article_create(blog=blog, title="By hand")
    deliver(one_delivery().pk)
    (received,) = receiver.received
    secret, raw_body = webhook.plain_secret, received.body
    msg_id, timestamp = received.headers["webhook-id"], received.headers["webhook-timestamp"]
    signature_header = received.headers["webhook-signature"]

    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    valid = any(
        hmac.compare_digest(expected, s.removeprefix("v1,")) for s in signature_header.split(" ")
    )

    assert valid
