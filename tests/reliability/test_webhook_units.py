"""The shipped systemd units of the Celery worker and beat start as written: their ExecStart,
with only the checkout's path, the schedule file and systemd's specifiers replaced, against the
test database and an own broker."""

from __future__ import annotations

import re
import shlex
import socket
from pathlib import Path

import pytest

from tests.support.servers import BASE_DIR

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

UNITS = BASE_DIR / "deploy" / "systemd"
CELERY = "/srv/blog-service/.venv/bin/celery"


def exec_start(unit: str, schedule: Path) -> list[str]:
    """The unit's ExecStart after `celery -A config`, its ${VARIABLES} from Environment=."""
    text = (UNITS / unit).read_text().replace("\\\n", " ")
    environment = {}
    for line in text.splitlines():
        if line.startswith("Environment="):
            environment.update(p.split("=", 1) for p in line.removeprefix("Environment=").split())
    line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[:3] == [CELERY, "-A", "config"], words
    expanded = []
    for word in words[3:]:
        word = re.sub(r"\$\{(\w+)\}", lambda match: environment[match[1]], word)
        word = word.replace("%H", socket.gethostname())
        expanded.append(word.replace("/var/lib/blog-service-beat/schedule", str(schedule)))
    return expanded


def test_the_worker_unit_starts_a_worker_as_written(start_celery, tmp_path):
    args = exec_start("blog-service-worker.service", tmp_path / "schedule")
    assert args[0] == "worker"
    worker = start_celery(*args, exact=True)
    assert f"blog-service@{socket.gethostname()} ready." in worker.log()


def test_the_beat_unit_starts_beat_as_written(start_celery, tmp_path):
    args = exec_start("blog-service-beat.service", tmp_path / "schedule")
    assert args[0] == "beat"
    beat = start_celery(*args, exact=True)
    assert "beat: Starting..." in beat.log()
    # The schedule's state goes where the unit says (StateDirectory=), not into the checkout.
    assert list(tmp_path.glob("schedule*"))
