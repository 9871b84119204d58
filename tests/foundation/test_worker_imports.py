"""What a web worker loads (issue 30: a lighter worker): the modules an optional feature needs
only when that feature is used, and the traces' packages only where they are installed. Each
case in a fresh process, as gunicorn loads the application."""

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


# A host that installed requirements.txt alone: the traces' packages (requirements-traces.txt)
# cannot be imported, whatever this checkout's .venv holds. The shared store's client is loaded
# as a worker with REDIS_URL loads it (redis-py imports OpenTelemetry's SDK when it can).
WITHOUT_TRACES = """
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("opentelemetry", "requests"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NotInstalled())
import django_redis.client, redis.client
"""


def run_the_worker(*args: str, prelude: str = "", **variables: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "PYTHONPATH": str(ROOT)}
    env.update({"EDGE_PURGE_URLS": "", **variables})
    return subprocess.run(
        [sys.executable, "-c", prelude + LOAD_THE_WORKER, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def load_the_worker(*args: str, **variables: str) -> str:
    loaded = run_the_worker(*args, **variables)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    return loaded.stdout


def pinned(requirements: str) -> set[str]:
    lines = (ROOT / requirements).read_text().splitlines()
    return {line.partition("==")[0].lower() for line in lines if "==" in line}


def test_a_worker_that_publishes_nothing_carries_none_of_celery():
    assert "celery loaded False False" in load_the_worker()


def test_the_first_publish_loads_the_projects_celery_app():
    output = load_the_worker("--publish")
    assert "celery loaded False False" in output
    assert "publishing app config" in output  # config/celery.py's app, not a default one


def test_with_an_edge_in_front_every_write_publishes_so_the_app_is_loaded_at_start():
    assert "celery loaded True True" in load_the_worker(EDGE_PURGE_URLS="http://127.0.0.1:9/")


def test_a_host_without_the_traces_packages_serves_every_route():
    loaded = run_the_worker(prelude=WITHOUT_TRACES)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert "celery loaded False False" in loaded.stdout


def test_traces_asked_for_without_their_packages_stop_the_start_saying_what_to_install():
    loaded = run_the_worker(prelude=WITHOUT_TRACES, OTEL_TRACES_EXPORTER="console")
    assert loaded.returncode != 0
    assert "ImproperlyConfigured: traces are on (console)" in loaded.stderr
    assert "pip install -r requirements-traces.txt" in loaded.stderr


def test_the_service_requirements_leave_the_traces_packages_to_their_own_file():
    service, traces = pinned("requirements.txt"), pinned("requirements-traces.txt")
    assert {"opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http", "requests"} <= traces
    assert not {name for name in service if name.startswith("opentelemetry")}
    assert "requests" not in service
    assert not service & traces
    assert "-r requirements.txt" in (ROOT / "requirements-traces.txt").read_text().splitlines()
    assert "-r requirements-traces.txt" in (ROOT / "requirements-dev.txt").read_text().splitlines()
