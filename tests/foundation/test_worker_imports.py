"""What a web worker loads (issue 30: a lighter worker): the modules an optional feature needs
only when that feature is used. Each case in a fresh process, as gunicorn loads the application."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The WSGI application with every route's view imported, then (if asked) one publish's app.
LOAD_THE_WORKER = """
import sys
import config.wsgi
from django.urls import get_resolver

def walk(patterns):
    for pattern in patterns:
        walk(getattr(pattern, "url_patterns", ()))

walk(get_resolver().url_patterns)
print("celery loaded", "celery" in sys.modules, "kombu" in sys.modules)
if "--publish" in sys.argv:
    from core import broker
    print("publishing app", broker.app().main)
"""


def load_the_worker(*args: str, **variables: str) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "PYTHONPATH": str(ROOT)}
    env.update({"EDGE_PURGE_URLS": "", **variables})
    return subprocess.run(
        [sys.executable, "-c", LOAD_THE_WORKER, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def test_a_worker_that_publishes_nothing_carries_none_of_celery():
    assert "celery loaded False False" in load_the_worker()


def test_the_first_publish_loads_the_projects_celery_app():
    output = load_the_worker("--publish")
    assert "celery loaded False False" in output
    assert "publishing app config" in output  # config/celery.py's app, not a default one


def test_with_an_edge_in_front_every_write_publishes_so_the_app_is_loaded_at_start():
    assert "celery loaded True True" in load_the_worker(EDGE_PURGE_URLS="http://127.0.0.1:9/")
