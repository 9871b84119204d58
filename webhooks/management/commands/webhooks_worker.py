"""`manage.py webhooks_worker`: a Celery worker with the relay's beat embedded, for `make run`
(production runs `celery -A config worker` and `beat`). As a manage.py command it reads the
checkout's .env, so it has the same settings as the dev server."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

from celery.signals import beat_embedded_init
from django.conf import settings
from django.core.management.base import BaseCommand

from config.celery import app

PR_SET_PDEATHSIG = 1  # Linux's prctl(2) option


class Command(BaseCommand):
    help = "Run a Celery worker with the webhook relay's schedule embedded (development)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--concurrency", type=int, default=2)
        parser.add_argument("--loglevel", default="INFO")

    def handle(self, *args, concurrency: int, loglevel: str, **options) -> None:
        self.stdout.write(f"Webhook worker on {settings.CELERY_BROKER_URL.split('@')[-1]}")
        worker = os.getpid()
        beat_embedded_init.connect(lambda sender, **kwargs: end_with_the_worker(worker), weak=False)
        app.worker_main(
            [
                "worker",
                "--beat",
                f"--schedule={settings.CELERY_BEAT_SCHEDULE_FILENAME}",
                f"--concurrency={concurrency}",
                f"--loglevel={loglevel}",
                "--without-gossip",
                "--without-mingle",
            ]
        )


def end_with_the_worker(worker: int) -> None:
    """In the embedded beat's process: stop when the worker's main process ends. Its pool's
    processes do so by themselves, beat did not: a worker that was SIGKILLed left its beat
    running, and `make run`, which starts the worker again, would have had two beats. SIGQUIT is
    the stop beat heeds (REMAP_SIGTERM=SIGQUIT makes it ignore SIGTERM). Linux only; elsewhere
    beat stays as it was."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGQUIT)
    if os.getppid() != worker:  # it ended before the line above
        os.kill(os.getpid(), signal.SIGQUIT)
