"""The transactional outbox: the event and its deliveries are written with the change, or not at
all; they are handed to the broker only after the commit."""

from __future__ import annotations

import json

import pytest
from django.db import transaction

from articles import services as article_services
from articles.models import Article
from webhooks import services
from webhooks.models import Delivery, Event

API = "/api/v1.2"


def only_event() -> Event:
    (event,) = Event.objects.all()
    return event


def test_a_write_through_the_api_writes_the_event_and_a_delivery_in_its_transaction(
    api, blog, alice, token_for, webhook, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.write(
            "POST", f"{API}/blogs/{blog.pk}/articles", {"title": "Hello"}, token=token_for(alice)
        )
    assert response.status_code == 201

    event = only_event()
    assert event.type == "article.created"
    assert event.id.startswith("evt_")
    (delivery,) = Delivery.objects.all()
    assert (delivery.subscription_id, delivery.status) == (webhook.pk, "pending")
    assert delivery.enqueued_at is None
    # The representation the API answered is the message's data, links and all.
    assert event.body["data"] == json.loads(response.content)
    assert event.body["type"] == "article.created"
    assert event.body["timestamp"].endswith("Z")
    # The hand-over to the broker waits for the commit (one callback among the write's own).
    assert any(getattr(c, "__qualname__", "").startswith("announce") for c in callbacks)


def test_a_write_that_rolls_back_leaves_no_event(blog, webhook):
    with pytest.raises(RuntimeError), transaction.atomic():
        article_services.article_create(blog=blog, title="Never")
        assert Event.objects.count() == 1  # written, inside the transaction
        raise RuntimeError("the request failed after the write")

    assert not Article.objects.exists()
    assert not Event.objects.exists()
    assert not Delivery.objects.exists()


def test_a_refused_write_leaves_no_event(api, archived_blog, alice, token_for, receiver):
    services.subscription_create(blog=archived_blog, url=receiver.url, events=["*"])
    response = api.write(
        "POST", f"{API}/blogs/{archived_blog.pk}/articles", {"title": "No"}, token=token_for(alice)
    )
    assert response.status_code == 409
    assert not Event.objects.exists()


def test_without_a_subscription_nothing_is_written(blog, other_blog, receiver):
    services.subscription_create(blog=other_blog, url=receiver.url, events=["*"])
    article_services.article_create(blog=blog, title="Quiet")
    assert not Event.objects.exists()


def test_only_active_subscriptions_that_want_the_event_get_a_delivery(blog, receiver):
    wants, _ = services.subscription_create(blog=blog, url=receiver.url, events=["article.created"])
    _other, _ = services.subscription_create(
        blog=blog, url=receiver.url, events=["comment.created"]
    )
    _off, _ = services.subscription_create(blog=blog, url=receiver.url, events=["*"], active=False)

    article_services.article_create(blog=blog, title="Hello")

    assert [d.subscription_id for d in Delivery.objects.all()] == [wants.pk]


def test_every_event_type_with_its_data(api, blog, alice, bob, webhook, token_for):
    token = token_for(alice)
    created = api.write("POST", f"{API}/blogs/{blog.pk}/articles", {"title": "A"}, token=token)
    url = created["Location"]
    replaced = api.write("PUT", url, {"title": "B", "content": "Text"}, token=token)
    comment = api.write("POST", f"{url}/comments", {"text": "Hi"}, token=token_for(bob))
    comment_url = comment["Location"]
    assert api.write("DELETE", comment_url, token=token).status_code == 204
    assert api.write("DELETE", url, token=token).status_code == 204

    events = list(Event.objects.order_by("created_at", "id"))
    assert [e.type for e in events] == [
        "article.created",
        "article.replaced",
        "comment.created",
        "comment.deleted",
        "article.deleted",
    ]
    data = [e.body["data"] for e in events]
    assert data[1] == json.loads(replaced.content)
    assert data[2] == json.loads(comment.content)
    assert data[3]["id"] == json.loads(comment.content)["id"]
    assert data[3]["_links"]["self"]["href"] == comment_url
    assert data[3]["_links"]["doc:article"]["href"] == url
    # A deletion's data is the tombstone's links (those of the 410 answer), with which one.
    assert data[4]["id"] == json.loads(created.content)["id"]
    assert data[4]["_links"]["self"]["href"] == url
    assert data[4]["_links"]["doc:blog"] == {
        "href": f"http://testserver{API}/blogs/{blog.pk}",
        "title": "Alice's blog",
    }
    assert api.get(url).status_code == 410
    assert Delivery.objects.filter(subscription=webhook).count() == 5


def test_after_the_commit_the_deliveries_are_handed_to_the_broker(
    blog, webhook, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        article_services.article_create(blog=blog, title="Sent")

    (delivery,) = Delivery.objects.all()
    # The in-memory broker of the tests took it: the relay leaves it alone.
    assert delivery.enqueued_at is not None
    assert services.deliveries_to_relay() == []


def test_the_relay_hands_over_what_never_reached_the_broker(blog, webhook, settings):
    settings.WEBHOOK_RELAY_SECONDS = 1
    article_services.article_create(blog=blog, title="Stuck")  # no commit: never handed over
    (delivery,) = Delivery.objects.all()
    assert services.deliveries_to_relay() == []  # not a second old yet: its hand-over may come

    Delivery.objects.update(next_attempt_at=delivery.next_attempt_at.replace(year=2000))
    assert services.deliveries_to_relay() == [delivery.pk]

    from webhooks.tasks import relay

    assert relay() == 1
    delivery.refresh_from_db()
    assert delivery.enqueued_at is not None
    assert services.deliveries_to_relay() == []


def test_old_events_are_forgotten_once_their_deliveries_are_over(blog, webhook, settings):
    settings.WEBHOOK_KEEP_DAYS = 30
    article_services.article_create(blog=blog, title="Old and done")
    article_services.article_create(blog=blog, title="Old, still pending")
    article_services.article_create(blog=blog, title="Recent")
    done, pending, recent = Event.objects.order_by("created_at", "id")
    Event.objects.filter(pk__in=[done.pk, pending.pk]).update(
        created_at=done.created_at.replace(year=2000)
    )
    Delivery.objects.filter(event=done).update(status="succeeded")

    from webhooks.tasks import purge

    assert purge() == 1
    assert set(Event.objects.values_list("pk", flat=True)) == {pending.pk, recent.pk}
    assert not Delivery.objects.filter(event_id=done.pk).exists()
