"""The admin's password login is throttled by django-axes."""

from __future__ import annotations

from axes.models import AccessAttempt
from django.conf import settings

LOGIN = "/admin/login/"


def log_in(client, username: str, password: str):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})


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
