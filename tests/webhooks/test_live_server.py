"""Over real HTTP: an author subscribes through the live server, writes an article, and the
message the task sends carries the same representation a client reads from the server."""

from __future__ import annotations

import json
import urllib.request

from standardwebhooks import Webhook

from webhooks.models import Delivery
from webhooks.tasks import deliver


def call(method: str, url: str, token: str, payload: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        method=method,
        data=None if payload is None else json.dumps(payload).encode(),
        headers={"X-Access-Token": token, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_a_subscription_made_over_http_receives_the_article_as_the_api_serves_it(
    live_server, transactional_db, blog, alice, token_for, receiver, settings
):
    settings.WEBHOOK_PUBLIC_URL = live_server.url
    token = token_for(alice)
    api = f"{live_server.url}/api/v1.2/blogs/{blog.pk}"

    status, webhook = call("POST", f"{api}/webhooks", token, {"url": receiver.url, "events": ["*"]})
    assert status == 201
    status, created = call("POST", f"{api}/articles", token, {"title": "Live", "content": "Hi"})
    assert status == 201
    # The write's commit handed the delivery to the broker (the tests' in-memory one).
    delivery = Delivery.objects.get()
    assert delivery.enqueued_at is not None

    deliver(delivery.pk)

    (received,) = receiver.received
    message = Webhook(webhook["secret"]).verify(received.body, received.headers)
    assert message["data"] == created
    with urllib.request.urlopen(created["_links"]["self"]["href"], timeout=10) as response:
        assert json.loads(response.read()) == message["data"]
    status, page = call("GET", f"{api}/webhooks/{webhook['id']}/deliveries", token)
    assert page["_embedded"][0]["status"] == "succeeded"
    assert page["_embedded"][0]["eventId"] == received.headers["webhook-id"]
