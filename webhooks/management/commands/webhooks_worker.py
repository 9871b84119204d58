"""`manage.py webhooks_worker`: a Celery worker with the relay's beat embedded, for `make run`
(production runs `celery -A config worker` and `beat`). As a manage.py command it reads the
checkout's .env, so it has the same settings as the dev server."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from config.celery import app


class Command(BaseCommand):
    help = "Run a Celery worker with the webhook relay's schedule embedded (development)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--concurrency", type=int, default=2)
        parser.add_argument("--loglevel", default="INFO")

    def handle(self, *args, concurrency: int, loglevel: str, **options) -> None:
        self.stdout.write(f"Webhook worker on {settings.CELERY_BROKER_URL.split('@')[-1]}")
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
