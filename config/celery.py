"""The Celery app that delivers webhooks (webhooks.tasks).

Worker: `celery -A config worker --loglevel=INFO`; the periodic relay: `celery -A config beat`
(or `worker -B` on one host). Settings are the CELERY_* names of config/settings/base.py.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
