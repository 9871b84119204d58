"""The development broker, a folder of message files (issue 40, point 6; core/broker_folder.py):
a publisher killed in the middle of writing a message, or a cut message file in the folder, does
not stop the worker, and the next scheduled draft is published on time.

The worker is a real `celery -A config worker` on `filesystem://` (the settings choose the
transport, as under `make run`); the publisher killed mid-write is a real process too, stopped by
the kernel (RLIMIT_FSIZE, SIGXFSZ) after the first 64 KiB of a larger message.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from celery import Celery
from django.utils import timezone

from core.broker_folder import Transport
from tests.reliability.test_scheduled_publishing import (
    ON_TIME,
    assert_published_once,
    published,
    scheduled_draft,
)
from tests.support.servers import BASE_DIR
from tests.support.webhooks import die_with_parent, service_env, wait_until

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CUT_AT = 64 * 1024  # bytes a publisher may write before the kernel stops it
# The service's own publishing path (core.broker.send), a message larger than CUT_AT.
PUBLISH = f"""
import resource, signal
resource.setrlimit(resource.RLIMIT_FSIZE, ({CUT_AT}, {CUT_AT}))
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it: here it ends the process
import django
django.setup()
from core import broker
broker.send("tests.padding", [("x" * {4 * CUT_AT},)])
"""


def folder_env(folder: Path) -> dict[str, str]:
    return {"CELERY_BROKER_URL": "filesystem://", "CELERY_BROKER_FOLDER": str(folder)}


def send_eta(folder: Path, draft) -> None:
    """What drafts.scheduling.send_publish sends, into the folder."""
    app = Celery("folder-test", broker="filesystem://")
    app.conf.broker_transport = Transport
    app.conf.broker_transport_options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "control_folder": str(folder / "control"),
    }
    try:
        app.send_task(
            "drafts.publish_scheduled",
            (draft.pk, draft.publish_at.isoformat()),
            countdown=max((draft.publish_at - timezone.now()).total_seconds(), 0),
        )
    finally:
        app.close()


def messages(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.msg"))


def publishes_on_time(worker, folder: Path, blog, alice) -> None:
    draft = scheduled_draft(blog, alice, 3)
    send_eta(folder, draft)
    wait_until(lambda: published(draft), timeout=ON_TIME, what="the scheduled publication")
    assert_published_once(draft, blog)
    assert worker.process.poll() is None, worker.log()  # the same worker, never restarted


def test_a_publisher_killed_mid_write_leaves_no_cut_message(start_celery, tmp_path, blog, alice):
    folder = tmp_path / "broker"
    # No sweep in reach: only the ETA message can publish the draft.
    worker = start_celery("worker", DRAFTS_SWEEP_SECONDS="3600", **folder_env(folder))
    assert resource.RLIMIT_FSIZE  # Linux and the BSDs

    publisher = subprocess.run(
        [sys.executable, "-c", PUBLISH],
        cwd=BASE_DIR,
        env=service_env(**folder_env(folder), LOG_LEVEL="ERROR"),
        capture_output=True,
        timeout=60,
        preexec_fn=die_with_parent,
    )
    for message in messages(folder):  # only whole ones, if the worker has not taken them yet
        json.loads(message.read_bytes())

    publishes_on_time(worker, folder, blog, alice)
    assert "is no message" not in worker.log()
    # Killed on its second write: kombu's own writer stopped after a short first one, as if done.
    assert publisher.returncode == -signal.SIGXFSZ, publisher.stderr.decode()[-2000:]


def test_a_cut_message_file_is_set_aside_and_the_worker_goes_on(
    start_celery, tmp_path, blog, alice
):
    folder = tmp_path / "broker"
    worker = start_celery("worker", DRAFTS_SWEEP_SECONDS="3600", **folder_env(folder))
    # What kombu's own writer left when it died after its first bytes, named to be read first.
    cut = folder / "0000000000000_5a0e3c1e-0000-4000-8000-000000000000.celery.msg"
    first_bytes = b'{"body": "eyJ0aXRsZSI6'
    cut.write_bytes(first_bytes)

    publishes_on_time(worker, folder, blog, alice)
    assert not cut.exists()
    assert (folder / "broken" / cut.name).read_bytes() == first_bytes
    assert f"broker folder: {cut.name} is no message ({len(first_bytes)} bytes" in worker.log()
