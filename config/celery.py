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
if app.conf.broker_url.startswith("filesystem://"):
    # The development broker, a folder: kombu's transport with whole message files only, a file
    # half-written by a crash set aside instead of ending the worker (core/broker_folder.py).
    # Decided here, on the final URL: settings that replace the URL (the tests') keep theirs.
    app.conf.broker_transport = "core.broker_folder:Transport"
app.autodiscover_tasks()
