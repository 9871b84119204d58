"""Django settings for the peer: the floor's (the service's DATABASES, no middleware, no cache,
no other app) with its own URLs, and DRF with drf-hal-json's renderer and parser."""

from __future__ import annotations

from bench.floor.settings import *  # noqa: F403 (the floor's settings, overridden below)

ROOT_URLCONF = "bench.peer.urls"
WSGI_APPLICATION = "bench.peer.wsgi.application"
# DRF's settings: drf-hal-json's renderer and parser (the views name them, their authentication
# and their permissions themselves too); DRF's defaults for everything else.
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["drf_hal_json.renderers.JsonHalRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "drf_hal_json.parsers.JsonHalParser",
        "rest_framework.parsers.JSONParser",
    ],
}
