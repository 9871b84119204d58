"""Idempotency-Key on POST: a retry returns the first answer, never a second article."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from articles.models import Article
from tests.rest.conftest import API, body


def post(api, blog, token, payload, key, **headers):
    return api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        payload,
        token=token,
        headers={"Idempotency-Key": key, **headers},
    )


def test_a_retried_post_returns_the_first_article_and_creates_no_second(api, blog, alice_token):
    first = post(api, blog, alice_token, {"title": "Once"}, "key-1")
    retry = post(api, blog, alice_token, {"title": "Once"}, "key-1")

    assert first.status_code == retry.status_code == 201
    assert body(retry) == body(first)
    assert retry["Location"] == first["Location"]
    assert retry["ETag"] == first["ETag"]
    assert retry["Idempotent-Replayed"] == "true"
    assert Article.objects.count() == 1


def test_another_key_or_another_token_makes_another_article(api, blog, alice, token_for):
    first, second = token_for(alice), token_for(alice, name="other")

    post(api, blog, first, {"title": "A"}, "key-1")
    post(api, blog, first, {"title": "A"}, "key-2")
    post(api, blog, second, {"title": "A"}, "key-1")

    assert Article.objects.count() == 3


def test_a_retry_while_the_first_is_in_progress_is_409(api, blog, alice_token):
    """The in-flight marker the first request leaves, found by a second process's retry."""
    from hashlib import sha256

    from blogs.models import AccessToken

    token = AccessToken.objects.get()
    key = f"idempotency:{token.pk}:{sha256(b'busy-key').hexdigest()}"
    # What run_idempotent stores while the first request runs (written here because a test
    # client request cannot be paused half-way).
    assert cache.add(key, {"state": "in-flight", "fingerprint": "x"}, 60)

    response = post(api, blog, alice_token, {"title": "Twice"}, "busy-key")

    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["type"].endswith("/docs/problems/request-in-progress")
    assert not Article.objects.exists()


def test_a_key_reused_for_a_different_body_is_422(api, blog, alice_token):
    post(api, blog, alice_token, {"title": "One"}, "key-1")

    response = post(api, blog, alice_token, {"title": "Another"}, "key-1")

    assert response.status_code == 422
    assert "Idempotency-Key" in body(response)["errors"]
    assert Article.objects.count() == 1


def test_a_failed_first_attempt_can_be_retried_with_the_same_key(api, blog, alice_token):
    failed = post(api, blog, alice_token, {"title": ""}, "key-1")
    retried = post(api, blog, alice_token, {"title": ""}, "key-1")
    fixed = post(api, blog, alice_token, {"title": "Fixed"}, "key-2")

    assert failed.status_code == retried.status_code == 422
    assert fixed.status_code == 201


@pytest.mark.parametrize("key", ["", "with space", "x" * 256, "tab\tkey", "é"])
def test_a_malformed_key_is_400(api, blog, alice_token, key):
    response = api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        {"title": "t"},
        token=alice_token,
        headers={"Idempotency-Key": key},
    )

    assert response.status_code == 400
    assert not Article.objects.exists()


def test_keys_are_kept_for_the_configured_time(api, blog, alice_token, settings):
    assert settings.IDEMPOTENCY_KEY_TTL_SECONDS == 24 * 3600
    post(api, blog, alice_token, {"title": "Kept"}, "key-ttl")

    from hashlib import sha256

    from blogs.models import AccessToken

    key = f"idempotency:{AccessToken.objects.get().pk}:{sha256(b'key-ttl').hexdigest()}"
    assert cache.get(key)["state"] == "done"


def test_with_the_cache_unreachable_a_keyed_post_is_503_and_a_plain_one_is_served(
    api, blog, alice_token, settings
):
    """A real Redis client pointed at a closed port."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }

    keyed = post(api, blog, alice_token, {"title": "Keyed"}, "key-down")
    plain = api.write(
        "POST", f"{API}/blogs/{blog.pk}/articles", {"title": "Plain"}, token=alice_token
    )

    assert keyed.status_code == 503
    assert keyed["Content-Type"] == "application/problem+json"
    assert int(keyed["Retry-After"]) > 0
    assert plain.status_code == 201
    assert list(Article.objects.values_list("title", flat=True)) == ["Plain"]
