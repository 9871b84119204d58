"""The REST resource of a blog's webhooks: HAL, the secret shown once, validation, 401/403."""

from __future__ import annotations

import base64
import json

import pytest

from webhooks.models import Subscription

API = "/api/v1.2"


def body(response) -> dict:
    return json.loads(response.content)


def webhooks_url(blog) -> str:
    return f"{API}/blogs/{blog.pk}/webhooks"


def create(api, blog, token, **fields):
    payload = {"url": "https://hooks.example/in", "events": ["article.created"], **fields}
    return api.write("POST", webhooks_url(blog), payload, token=token)


def test_an_author_subscribes_and_gets_the_secret_once(api, blog, alice, token_for):
    token = token_for(alice)
    response = create(api, blog, token, events=["article.created", "comment.deleted"])

    assert response.status_code == 201
    created = body(response)
    assert response["Location"] == created["_links"]["self"]["href"]
    assert response["Cache-Control"] == "no-store"
    assert created["url"] == "https://hooks.example/in"
    assert created["events"] == ["article.created", "comment.deleted"]
    assert created["active"] is True and created["disabledReason"] is None
    secret = created["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) >= 24
    assert set(created["_links"]) == {
        "curies",
        "self",
        "doc:blog",
        "doc:deliveries",
        "doc:rotateSecret",
    }

    read = api.get(response["Location"], headers={"X-Access-Token": token})
    assert read.status_code == 200
    assert "secret" not in body(read)
    assert secret not in read.content.decode()
    page = body(api.get(webhooks_url(blog), headers={"X-Access-Token": token}))
    assert page["totalWebhooks"] == 1
    assert [w["id"] for w in page["_embedded"]] == [created["id"]]
    assert page["_links"]["item"] == [
        {"href": created["_links"]["self"]["href"], "title": "https://hooks.example/in"}
    ]
    assert "secret" not in page["_embedded"][0]


def test_the_blog_links_to_its_webhooks(api, blog, alice, token_for):
    links = body(api.get(f"{API}/blogs/{blog.pk}"))["_links"]
    template = links["doc:webhooks"]
    assert template["templated"] is True
    href = template["href"].replace("{?pageIndex,pageSize}", "")
    assert api.get(href, headers={"X-Access-Token": token_for(alice)}).status_code == 200
    assert api.get("/docs/rels/webhooks").status_code == 200


def test_every_doc_relation_of_a_webhook_and_a_delivery_is_documented(api, blog, alice, token_for):
    created = body(create(api, blog, token_for(alice)))
    for rel in created["_links"]:
        if rel.startswith("doc:"):
            assert api.get(f"/docs/rels/{rel.removeprefix('doc:')}").status_code == 200, rel
    for rel in ("webhook", "redeliver"):
        assert api.get(f"/docs/rels/{rel}").status_code == 200, rel


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_without_a_token_even_reading_is_401(api, blog, method):
    payload = {"url": "https://a.example", "events": ["*"]} if method == "POST" else None
    response = api.write(method, webhooks_url(blog), payload)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'X-Access-Token realm="api"'
    assert response["Content-Type"] == "application/problem+json"


def test_an_unknown_token_is_401(api, blog):
    response = api.get(webhooks_url(blog), headers={"X-Access-Token": "not-a-token"})
    assert response.status_code == 401


@pytest.mark.parametrize("who", ["bob", "outsider", "editor"])
def test_only_the_blogs_authors_see_and_manage_its_webhooks(
    api, blog, alice, token_for, request, who
):
    """Editors manage webhooks in the admin; through the API, only the blog's authors do."""
    user = request.getfixturevalue(who)
    token = token_for(user)
    created = body(create(api, blog, token_for(alice)))
    self_url = created["_links"]["self"]["href"]

    assert api.get(webhooks_url(blog), headers={"X-Access-Token": token}).status_code == 403
    assert create(api, blog, token).status_code == 403
    assert api.get(self_url, headers={"X-Access-Token": token}).status_code == 403
    assert api.write("PATCH", self_url, {"active": False}, token=token).status_code == 403
    assert api.write("DELETE", self_url, token=token).status_code == 403
    assert api.write("POST", self_url + "/rotate-secret", token=token).status_code == 403
    assert Subscription.objects.get().active is True


def test_a_webhook_of_another_blog_is_404(api, blog, other_blog, alice, bob, token_for):
    created = body(create(api, blog, token_for(alice)))
    other = f"{API}/blogs/{other_blog.pk}/webhooks/{created['id']}"
    assert api.get(other, headers={"X-Access-Token": token_for(bob)}).status_code == 404


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"url": "ftp://hooks.example/in"}, "url", "http or https"),
        ({"url": "hooks.example/in"}, "url", "http or https"),
        ({"url": "https://"}, "url", "http or https"),
        ({"url": "https://hooks.example:99999/"}, "url", "http or https"),
        ({"url": "https://user:pw@hooks.example/"}, "url", "user name or password"),
        ({"url": "https://hooks.example/" + "a" * 2000}, "url", "2000 characters"),
        ({"url": 5}, "url", "string"),
        ({"events": ["article.archived"]}, "events", "Unknown event type 'article.archived'"),
        ({"events": []}, "events", ""),
        ({"events": "article.created"}, "events", ""),
        ({"active": "yes"}, "active", "true or false"),
    ],
)
def test_a_bad_field_is_422_naming_it(api, blog, alice, token_for, fields, field, message):
    response = create(api, blog, token_for(alice), **fields)

    assert response.status_code == 422, response.content
    problem = body(response)
    assert list(problem["errors"]) == [field]
    assert message in " ".join(problem["errors"][field])
    assert not Subscription.objects.exists()


def test_star_means_every_event_and_a_one_label_host_is_allowed(api, blog, alice, token_for):
    response = create(api, blog, token_for(alice), url="http://receiver:8080/in", events=["*"])
    assert response.status_code == 201
    subscription = Subscription.objects.get()
    assert subscription.events == ["*"]
    assert all(subscription.wants(t) for t in ("article.created", "comment.deleted"))


def test_patch_changes_what_is_sent_and_turning_on_forgets_the_reason(api, blog, alice, token_for):
    token = token_for(alice)
    url = body(create(api, blog, token))["_links"]["self"]["href"]

    off = api.write("PATCH", url, {"active": False}, token=token)
    assert off.status_code == 200
    assert body(off)["active"] is False
    assert body(off)["disabledReason"] == "Turned off by its author."
    assert body(off)["events"] == ["article.created"]

    on = body(api.write("PATCH", url, {"active": True, "events": ["*"]}, token=token))
    assert (on["active"], on["disabledReason"], on["events"]) == (True, None, ["*"])

    bad = api.write("PATCH", url, {"url": "javascript:alert(1)"}, token=token)
    assert bad.status_code == 422
    assert Subscription.objects.get().url == "https://hooks.example/in"


def test_delete_removes_the_webhook(api, blog, alice, token_for):
    token = token_for(alice)
    url = body(create(api, blog, token))["_links"]["self"]["href"]

    assert api.write("DELETE", url, token=token).status_code == 204
    assert api.get(url, headers={"X-Access-Token": token}).status_code == 404


def test_rotating_shows_a_new_secret_once_and_keeps_the_old_one_a_day(api, blog, alice, token_for):
    token = token_for(alice)
    created = body(create(api, blog, token))

    response = api.write("POST", created["_links"]["doc:rotateSecret"]["href"], token=token)

    assert response.status_code == 200
    rotated = body(response)
    assert rotated["secret"].startswith("whsec_")
    assert rotated["secret"] != created["secret"]
    subscription = Subscription.objects.get()
    assert subscription.previous_secret == created["secret"]
    assert rotated["previousSecretExpiresAt"] is not None
    hours = (subscription.previous_secret_expires_at - subscription.updated_at).total_seconds()
    assert hours / 3600 == pytest.approx(24, abs=0.01)


def test_options_says_which_methods_there_are_without_a_token(api, blog):
    response = api.options(webhooks_url(blog))
    assert response.status_code == 200
    assert set(response["Allow"].replace(" ", "").split(",")) >= {"GET", "POST", "OPTIONS"}


def test_a_blog_has_at_most_webhook_max_per_blog_webhooks(api, blog, alice, token_for, settings):
    settings.WEBHOOK_MAX_PER_BLOG = 3
    token = token_for(alice)
    made = [body(create(api, blog, token, url=f"https://hooks.example/{n}")) for n in range(3)]
    # A disabled webhook still counts: turning it on again needs no free place.
    patched = api.write("PATCH", made[0]["_links"]["self"]["href"], {"active": False}, token=token)
    assert patched.status_code == 200

    refused = create(api, blog, token, url="https://hooks.example/fourth")

    assert refused.status_code == 409
    assert refused["Content-Type"] == "application/problem+json"
    problem = body(refused)
    assert problem["type"].endswith("/docs/problems/webhook-limit-reached")
    assert problem["title"] == "Webhook limit reached"
    assert "3 webhooks" in problem["detail"]
    assert api.get(problem["type"]).status_code == 200
    assert Subscription.objects.filter(blog=blog).count() == 3
    # The limit is per blog: deleting one frees a place.
    deleted = api.write("DELETE", made[1]["_links"]["self"]["href"], token=token)
    assert deleted.status_code == 204
    assert create(api, blog, token, url="https://hooks.example/fourth").status_code == 201


def test_the_webhook_cap_is_per_blog(api, blog, other_blog, alice, bob, token_for, settings):
    settings.WEBHOOK_MAX_PER_BLOG = 1
    assert create(api, blog, token_for(alice)).status_code == 201
    assert create(api, other_blog, token_for(bob)).status_code == 201
    assert create(api, blog, token_for(alice)).status_code == 409


@pytest.fixture
def webhook_write_limit(settings):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_WRITE = "100/min"
    settings.RATE_LIMIT_WEBHOOK_WRITE = "5/min"


def test_webhook_writes_have_a_rate_limit_of_their_own(
    api, blog, article, alice, token_for, webhook_write_limit
):
    """Create, change, rotate, redeliver and delete each count; the sixth write is 429 with the
    headers of every limit; reads and the token's other writes are not held back."""
    token = token_for(alice)
    created = create(api, blog, token)
    assert created.status_code == 201
    assert created["RateLimit-Policy"] == '"webhook-write";q=5;w=60'
    assert created["RateLimit"].startswith('"webhook-write";r=4;')
    url = body(created)["_links"]["self"]["href"]
    assert api.write("PATCH", url, {"active": False}, token=token).status_code == 200
    assert api.write("POST", f"{url}/rotate-secret", token=token).status_code == 200
    redeliver = f"{url}/deliveries/999999/redeliver"
    assert api.write("POST", redeliver, token=token).status_code == 404
    assert api.get(url, headers={"X-Access-Token": token}).status_code == 200
    assert api.write("DELETE", url, token=token).status_code == 204

    refused = create(api, blog, token)

    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/problem+json"
    assert body(refused)["type"].endswith("/docs/problems/too-many-requests")
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused["RateLimit-Policy"] == '"webhook-write";q=5;w=60'
    assert refused["RateLimit"].startswith('"webhook-write";r=0;')
    assert Subscription.objects.filter(blog=blog).count() == 0
    for method in ("PATCH", "DELETE"):
        assert api.write(method, url, {"active": True}, token=token).status_code == 429
    # The token's other writes have the write limit only.
    comment = api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/articles/{article.pk}/comments",
        {"text": "still allowed"},
        token=token,
    )
    assert comment.status_code == 201
    assert comment["RateLimit-Policy"] == '"write";q=100;w=60'


def test_the_webhook_write_limit_is_per_token(
    api, blog, other_blog, alice, bob, token_for, webhook_write_limit
):
    alice_token = token_for(alice)
    for n in range(5):
        assert create(api, blog, alice_token, url=f"https://hooks.example/{n}").status_code == 201
    assert create(api, blog, alice_token).status_code == 429
    assert create(api, other_blog, token_for(bob)).status_code == 201
