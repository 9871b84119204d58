"""Minimal Django settings for the floor: the service's DATABASES, no middleware, no DRF."""

from __future__ import annotations

from config.settings.base import (  # noqa: F401 (Django reads these names)
    ALLOWED_HOSTS,
    DATABASES,
    DEFAULT_AUTO_FIELD,
    SECRET_KEY,
    TIME_ZONE,
    USE_TZ,
)

DEBUG = False
# core: the models import core.representations, which needs core's models (the edge's outbox).
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "core", "blogs", "articles"]
# No broker and no edge: nothing here hands work to Celery (core's ready() reads both settings).
CELERY_BROKER_URL = ""
EDGE_PURGE_URLS: list[str] = []
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "bench.floor.urls"
WSGI_APPLICATION = "bench.floor.wsgi.application"
USE_I18N = False
LOGGING = {"version": 1, "disable_existing_loggers": False}
