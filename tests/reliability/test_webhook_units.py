"""The shipped systemd units of the Celery worker and beat start as written: their ExecStart and
Environment=, with only the checkout's path, the schedule file and systemd's specifiers replaced,
against the test database and an own broker."""

from __future__ import annotations

import socket

import pytest

from tests.support.webhooks import unit_command

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_worker_unit_starts_a_worker_as_written(start_celery, tmp_path):
    args, environment = unit_command("blog-service-worker.service", tmp_path / "schedule")
    assert args[0] == "worker"
    worker = start_celery(*args, exact=True, **environment)
    assert f"blog-service@{socket.gethostname()} ready." in worker.log()


def test_the_beat_unit_starts_beat_as_written(start_celery, tmp_path):
    args, environment = unit_command("blog-service-beat.service", tmp_path / "schedule")
    assert args[0] == "beat"
    beat = start_celery(*args, exact=True, **environment)
    assert "beat: Starting..." in beat.log()
    # The schedule's state goes where the unit says (StateDirectory=), not into the checkout.
    assert list(tmp_path.glob("schedule*"))
