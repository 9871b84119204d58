"""config/gunicorn.conf.py, checked on a real gunicorn serving the service."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
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


def production_env(folder: Path, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": "gunicorn-config-test-key-not-for-production-0123456789",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "REDIS_URL": "",
        **extra,
    }
    for name in ("BIND", "BEHIND_TRUSTED_PROXY"):
        if name not in extra:
            env.pop(name, None)
    return env


@contextlib.contextmanager
def serving(env: dict[str, str], origin: str) -> Iterator[subprocess.Popen]:
    """gunicorn with config/gunicorn.conf.py, once `origin` answers; stopped at the end."""
    server = subprocess.Popen(
        [str(GUNICORN), "-c", "config/gunicorn.conf.py", "config.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(150):
            try:
                get(origin + "/")
                break
            except OSError:
                time.sleep(0.1)
        yield server
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    port = free_port()
    env = production_env(
        tmp_path_factory.mktemp("gunicorn"),
        PORT=str(port),
        WEB_CONCURRENCY="3",
        GUNICORN_THREADS="1",
    )
    origin = f"http://127.0.0.1:{port}"
    with serving(env, origin) as server:
        yield server, origin


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


# gunicorn alone serves loopback only (docs/decisions/gunicorn-alone-on-loopback.md).
@pytest.mark.parametrize("host", ["0.0.0.0", "[::]", "", "192.0.2.10", "blog.example.org"])  # noqa: S104
def test_gunicorn_alone_refuses_to_listen_beyond_loopback(tmp_path, host):
    port = free_port()

    server = subprocess.Popen(
        [str(GUNICORN), "-c", "config/gunicorn.conf.py", "config.wsgi"],
        cwd=ROOT,
        env=production_env(tmp_path, BIND=f"{host}:{port}", WEB_CONCURRENCY="1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, errors = server.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.communicate()
        pytest.fail(f"gunicorn started on {host}:{port} without a trusted proxy")

    assert server.returncode != 0
    assert f"BIND={host}:{port} is not a loopback address" in errors
    assert "BEHIND_TRUSTED_PROXY=true" in errors


@pytest.mark.parametrize(
    ("bind", "proxy"),
    [
        ("127.0.0.2", None),  # any loopback address
        ("localhost", None),
        ("0.0.0.0", "true"),  # noqa: S104 (behind the proxy, an address it reaches)
    ],
)
def test_gunicorn_serves_loopback_alone_and_any_address_behind_the_trusted_proxy(
    tmp_path, bind, proxy
):
    port = free_port()
    extra = {"BIND": f"{bind}:{port}", "PORT": str(port), "WEB_CONCURRENCY": "1"}
    extra["ALLOWED_HOSTS"] = "127.0.0.1,127.0.0.2"
    if proxy:
        extra["BEHIND_TRUSTED_PROXY"] = proxy
    host = "127.0.0.2" if bind == "127.0.0.2" else "127.0.0.1"
    origin = f"http://{host}:{port}"

    with serving(production_env(tmp_path, **extra), origin):
        status, _ = get(f"{origin}/livez")

    assert status == 200
