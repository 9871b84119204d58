"""Minimal Django settings for the peer: the service's DATABASES, DRF with drf-hal-json's renderer
and parser, no middleware, no cache, no other app."""

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
# No broker: nothing here hands work to Celery (core's ready() reads the setting).
CELERY_BROKER_URL = ""
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "bench.peer.urls"
WSGI_APPLICATION = "bench.peer.wsgi.application"
USE_I18N = False
LOGGING = {"version": 1, "disable_existing_loggers": False}
# DRF's settings: drf-hal-json's renderer and parser (the views name them, their authentication
# and their permissions themselves too); DRF's defaults for everything else.
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["drf_hal_json.renderers.JsonHalRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "drf_hal_json.parsers.JsonHalParser",
        "rest_framework.parsers.JSONParser",
    ],
}
