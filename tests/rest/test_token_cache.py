"""The token check's memory (blogs.tokens): a token used a moment ago costs no query, and any
change to it or its user takes effect at the next request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from blogs import services as blog_services
from blogs import tokens
from blogs.models import AccessToken, hash_token
from tests.rest.conftest import API


def put(api, article, token, title="t"):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"
    return api.write("PUT", url, {"title": title}, token=token)


def token_statements(queries) -> list[str]:
    return [q["sql"] for q in queries if "blogs_accesstoken" in q["sql"]]


def test_a_token_used_a_moment_ago_is_checked_without_a_query(api, article, alice_token):
    with CaptureQueriesContext(connection) as first:
        assert put(api, article, alice_token).status_code == 200
    # The lookup, and its use recorded (once a minute).
    assert [sql.split()[0] for sql in token_statements(first.captured_queries)] == [
        "SELECT",
        "UPDATE",
    ]
    with CaptureQueriesContext(connection) as second:
        assert put(api, article, alice_token, "again").status_code == 200
    assert token_statements(second.captured_queries) == []


def test_without_a_memory_every_write_looks_its_token_up(api, article, alice_token, settings):
    settings.TOKEN_CACHE_SECONDS = 0
    put(api, article, alice_token)
    with CaptureQueriesContext(connection) as second:
        assert put(api, article, alice_token, "again").status_code == 200
    assert [sql.split()[0] for sql in token_statements(second.captured_queries)] == ["SELECT"]


def _revoke_by_service(token, alice, client):
    blog_services.token_revoke(token=token)


def _revoke_by_command(token, alice, client):
    call_command("revoke_token", token.prefix, stdout=None)


def _revoke_in_the_admin(token, alice, client):
    response = client.post(
        "/admin/blogs/accesstoken/",
        {"action": "revoke_tokens", "_selected_action": [token.pk]},
    )
    assert response.status_code == 302


def _delete_the_token(token, alice, client):
    token.delete()


def _deactivate_the_user(token, alice, client):
    alice.is_active = False
    alice.save()


def _delete_the_user(token, alice, client):
    alice.delete()


def _expire_in_the_admin_form(token, alice, client):
    token.expires_at = timezone.now() - timedelta(seconds=1)
    token.save()


@pytest.mark.parametrize(
    "change",
    [
        _revoke_by_service,
        _revoke_by_command,
        _revoke_in_the_admin,
        _delete_the_token,
        _deactivate_the_user,
        _delete_the_user,
        _expire_in_the_admin_form,
    ],
)
def test_any_change_to_a_remembered_token_or_its_user_counts_at_the_next_request(
    api, article, alice, alice_token, admin_client, change
):
    assert put(api, article, alice_token).status_code == 200
    assert tokens.remembered(hash_token(alice_token)) is not None
    change(AccessToken.objects.get(), alice, admin_client)
    assert tokens.remembered(hash_token(alice_token)) is None
    assert put(api, article, alice_token, "after").status_code == 401


def test_a_check_that_read_the_token_before_its_revocation_cannot_bring_it_back(
    api, article, alice_token, django_capture_on_commit_callbacks
):
    stale = AccessToken.objects.select_related("user").get()  # read before the revocation
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        blog_services.token_revoke(token=stale)
    assert callbacks  # the tombstone is set again once the revocation committed
    tokens.remember(stale)  # the slow check adds what it read: refused by the tombstone
    assert tokens.remembered(hash_token(alice_token)) is None
    assert put(api, article, alice_token).status_code == 401


def test_a_remembered_token_expires_on_time(api, article, alice, token_for, monkeypatch):
    token = token_for(alice, expires_at=timezone.now() + timedelta(minutes=5))
    assert put(api, article, token).status_code == 200
    assert tokens.remembered(hash_token(token)) is not None
    later = timezone.now() + timedelta(minutes=6)
    monkeypatch.setattr(blog_services.timezone, "now", lambda: later)
    assert put(api, article, token, "later").status_code == 401


def test_the_remembered_user_is_the_one_the_permission_checks_read(
    api, article, outsider, token_for
):
    """A token of someone who is not an author but holds the permission: it writes the same
    from memory (is_superuser, is_staff and the rights come with the user)."""
    outsider.is_superuser = True
    outsider.save()
    token = token_for(outsider)
    assert put(api, article, token).status_code == 200
    assert tokens.remembered(hash_token(token)).user.is_superuser
    assert put(api, article, token, "again").status_code == 200
