"""The admin's password login is throttled by django-axes."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.conf import settings

LOGIN = "/admin/login/"


def log_in(client, username: str, password: str, headers: dict[str, str] | None = None):
    form = {"username": username, "password": password, "next": "/admin/"}
    return client.post(LOGIN, form, headers=headers)


def test_the_right_password_logs_an_editor_in(client, editor):
    response = log_in(client, "editor", "editor-password")
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_after_the_failure_limit_even_the_right_password_is_refused(client, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "editor", "guess").status_code == 200  # the form again
    assert log_in(client, "editor", "guess").status_code == 429
    response = log_in(client, "editor", "editor-password")
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
    attempt = AccessAttempt.objects.get(username="editor")
    assert attempt.failures_since_start >= settings.AXES_FAILURE_LIMIT


def test_a_lockout_for_one_username_does_not_lock_out_other_editors(client, editor, alice):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "alice", "guess")
    assert log_in(client, "alice", "alice-password").status_code == 429
    assert log_in(client, "editor", "editor-password").status_code == 302


def test_a_success_before_the_limit_resets_the_count(client, editor):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in(client, "editor", "guess")
    assert log_in(client, "editor", "editor-password").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "editor", "guess").status_code == 200


def test_without_a_trusted_proxy_x_forwarded_for_does_not_change_the_address(client, editor):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        spoofed = {"X-Forwarded-For": f"198.51.100.{attempt}"}
        log_in(client, "editor", "guess", headers=spoofed)

    assert log_in(client, "editor", "editor-password").status_code == 429
    assert AccessAttempt.objects.get(username="editor").ip_address == "127.0.0.1"


@pytest.fixture
def behind_trusted_proxy(settings):
    """What BEHIND_TRUSTED_PROXY sets for the client's address: one proxy, which writes it."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def test_behind_the_trusted_proxy_each_forwarded_address_is_locked_out_alone(
    client, editor, behind_trusted_proxy
):
    guesser = {"X-Forwarded-For": "203.0.113.7"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "editor", "guess", headers=guesser)

    assert log_in(client, "editor", "editor-password", headers=guesser).status_code == 429
    owner = {"X-Forwarded-For": "203.0.113.8"}
    assert log_in(client, "editor", "editor-password", headers=owner).status_code == 302


def test_behind_the_trusted_proxy_a_forwarded_value_that_is_no_address_is_not_an_error(
    client, editor, behind_trusted_proxy
):
    response = log_in(client, "editor", "guess", headers={"X-Forwarded-For": "not-an-address"})

    assert response.status_code == 200  # the form again
    assert AccessAttempt.objects.get(username="editor").ip_address == "127.0.0.1"
