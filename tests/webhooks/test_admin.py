"""Editors manage every blog's webhooks in the admin: the secret shown once, validation as in the
API, the deliveries with their attempts, and a failed delivery sent again."""

from __future__ import annotations

import re

import pytest

from articles import services as article_services
from webhooks.models import Delivery, Subscription
from webhooks.tasks import deliver

from .conftest import Answer


@pytest.fixture
def editor_client(client, webhook_editor):
    client.force_login(webhook_editor)
    return client


@pytest.fixture
def failed_delivery(blog, webhook, receiver):
    receiver.answer(Answer(404, b"no such hook"))
    article_services.article_create(blog=blog, title="Lost")
    delivery = Delivery.objects.get()
    deliver(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "failed"
    return delivery


@pytest.mark.parametrize(
    "path",
    [
        "/admin/webhooks/subscription/",
        "/admin/webhooks/subscription/add/",
        "/admin/webhooks/subscription/{webhook}/change/",
        "/admin/webhooks/delivery/",
        "/admin/webhooks/delivery/?status=failed",
        "/admin/webhooks/delivery/{delivery}/change/",
    ],
)
def test_every_webhook_admin_page_renders_for_the_editor(
    editor_client, webhook, failed_delivery, path
):
    response = editor_client.get(path.format(webhook=webhook.pk, delivery=failed_delivery.pk))
    assert response.status_code == 200


def test_a_delivery_page_shows_its_attempts_and_message(editor_client, failed_delivery):
    page = editor_client.get(
        f"/admin/webhooks/delivery/{failed_delivery.pk}/change/"
    ).content.decode()
    assert "no such hook" in page
    assert "404" in page
    assert failed_delivery.event_id in page


def test_an_editor_adds_a_webhook_and_sees_its_secret_once(editor_client, blog):
    response = editor_client.post(
        "/admin/webhooks/subscription/add/",
        {
            "blog": blog.pk,
            "url": "https://hooks.example/admin",
            "events": ["article.created", "article.deleted"],
            "active": "on",
        },
        follow=True,
    )

    assert response.status_code == 200
    subscription = Subscription.objects.get()
    assert subscription.events == ["article.created", "article.deleted"]
    page = response.content.decode()
    assert subscription.secret in page
    assert "not shown again" in page
    change = editor_client.get(f"/admin/webhooks/subscription/{subscription.pk}/change/")
    assert subscription.secret not in change.content.decode()


def test_the_admin_refuses_what_the_api_refuses(editor_client, blog):
    response = editor_client.post(
        "/admin/webhooks/subscription/add/",
        {"blog": blog.pk, "url": "gopher://hooks.example/", "events": ["*"]},
    )
    assert response.status_code == 200
    assert "Must be an absolute http or https URL." in response.content.decode()
    assert not Subscription.objects.exists()


def test_the_admin_refuses_a_webhook_over_the_blogs_cap(editor_client, blog, webhook, settings):
    settings.WEBHOOK_MAX_PER_BLOG = 1
    response = editor_client.post(
        "/admin/webhooks/subscription/add/",
        {"blog": blog.pk, "url": "https://hooks.example/second", "events": ["*"]},
    )
    assert response.status_code == 200
    assert "as many as it may (WEBHOOK_MAX_PER_BLOG)" in response.content.decode()
    assert list(Subscription.objects.all()) == [webhook]


def test_rotating_in_the_admin_shows_the_new_secret(editor_client, webhook):
    response = editor_client.post(
        "/admin/webhooks/subscription/",
        {"action": "rotate_secrets", "_selected_action": [webhook.pk]},
        follow=True,
    )
    webhook.refresh_from_db()
    assert webhook.previous_secret == webhook.plain_secret
    assert webhook.secret in response.content.decode()


def test_a_failed_delivery_is_sent_again_from_the_admin(editor_client, failed_delivery, receiver):
    response = editor_client.post(
        "/admin/webhooks/delivery/",
        {"action": "send_again", "_selected_action": [failed_delivery.pk]},
        follow=True,
    )
    assert "1 delivery(ies) will be sent again." in response.content.decode()
    failed_delivery.refresh_from_db()
    assert failed_delivery.status == "pending"

    deliver(failed_delivery.pk)

    ids = [r.headers["webhook-id"] for r in receiver.received]
    assert ids == [failed_delivery.event_id] * 2


def test_an_editor_without_the_webhook_permissions_sees_none(client, editor, webhook):
    client.force_login(editor)
    assert client.get("/admin/webhooks/subscription/").status_code == 403
    page = client.get("/admin/").content.decode()
    assert not re.search(r"/admin/webhooks/", page)


def test_deleting_in_the_admin_deletes_the_deliveries_too(editor_client, webhook, failed_delivery):
    response = editor_client.post(
        f"/admin/webhooks/subscription/{webhook.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert response.status_code == 200
    assert not Subscription.objects.exists()
    assert not Delivery.objects.exists()


def test_a_comment_deleted_in_the_admin_is_announced(client, editor, blog, article, alice, webhook):
    from articles.models import Comment
    from webhooks.models import Event

    comment = article_services.comment_create(article=article, author=alice, text="Spam")
    client.force_login(editor)

    response = client.post(
        "/admin/articles/comment/",
        {"action": "delete_selected", "_selected_action": [comment.pk], "post": "yes"},
        follow=True,
    )

    assert response.status_code == 200
    assert not Comment.objects.exists()
    deleted = Event.objects.get(type="comment.deleted")
    assert deleted.body["data"]["id"] == comment.pk
