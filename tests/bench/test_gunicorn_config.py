"""config/gunicorn.conf.py, checked on a real gunicorn serving the service."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": "gunicorn-config-test-key-not-for-production-0123456789",
        "DATABASE_URL": f"sqlite:///{tmp_path_factory.mktemp('gunicorn') / 'db.sqlite3'}",
        "REDIS_URL": "",
        "PORT": str(port),
        "WEB_CONCURRENCY": "3",
        "GUNICORN_THREADS": "1",
    }
    env.pop("BIND", None)
    server = subprocess.Popen(
        [str(GUNICORN), "-c", "config/gunicorn.conf.py", "config.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    origin = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                get(origin + "/")
                break
            except OSError:
                time.sleep(0.1)
        yield server, origin
    finally:
        server.terminate()
        server.wait(timeout=30)


def workers_of(master: int) -> list[str]:
    return Path(f"/proc/{master}/task/{master}/children").read_text().split()


def test_a_request_line_over_the_soap_get_limit_reaches_the_service(gunicorn):
    _, origin = gunicorn

    status, body = get(f"{origin}/nowhere?FirstValue={'1' * 3500}")

    # Django's own 404, not gunicorn's 414 "Request Line is too large".
    assert status == 404
    assert b"Request Line" not in body


def test_a_request_line_beyond_what_gunicorn_allows_is_refused_before_django(gunicorn):
    _, origin = gunicorn

    status, body = get(f"{origin}/nowhere?FirstValue={'1' * 9000}")

    assert status == 414
    assert b"Request Line is too large" in body


def test_the_number_of_workers_comes_from_web_concurrency(gunicorn):
    server, _ = gunicorn

    for _ in range(100):
        if len(workers_of(server.pid)) == 3:
            break
        time.sleep(0.1)

    assert len(workers_of(server.pid)) == 3


def test_debug_is_off_so_errors_show_no_details(gunicorn):
    _, origin = gunicorn

    status, body = get(f"{origin}/nowhere")

    assert status == 404
    assert b"URLconf" not in body
