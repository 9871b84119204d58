"""Fixtures for the reliability, security and fuzz tests (imported by their conftest.py).

Markers:
- `postgres`: skipped on SQLite, with the reason (SQLite serialises every writer and is one file
  on one machine, so concurrency and several servers prove nothing there).
- `servers`: starts real gunicorn processes; left out of the default run (they take seconds
  each) and run with `pytest -m servers` on PostgreSQL and Redis (.ci/servers).
- `fuzz`: property-based fuzzing, bounded; run with `pytest -m fuzz` (.ci/fuzz).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from tests.support.admin import EDITOR_PASSWORD
from tests.support.servers import BASE_DIR, GunicornServer, database_url
from tests.support.tcpproxy import FaultProxy

OPT_IN_MARKERS = {
    "servers": "starts gunicorn processes: run with `pytest -m servers` (.ci/servers)",
    "fuzz": "bounded fuzzing: run with `pytest -m fuzz` (.ci/fuzz)",
}


@pytest.fixture(autouse=True)
def reliability_gates(request) -> None:
    if request.node.get_closest_marker("postgres") and connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL (set DATABASE_URL): SQLite serialises all writers in one file, "
            "so concurrent writers and several servers prove nothing there"
        )
    selected = request.config.option.markexpr or ""
    for marker, how in OPT_IN_MARKERS.items():
        if request.node.get_closest_marker(marker) and marker not in selected:
            pytest.skip(f"opt-in test: {how}")


@pytest.fixture
def redis_url() -> str:
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (set REDIS_URL): several servers share their limits through it")
    return settings.REDIS_URL


@pytest.fixture
def live_port(live_server) -> int:
    return urlsplit(live_server.url).port


@pytest.fixture(scope="session")
def collected_static() -> None:
    """The static files collected as `make serve` collects them: a server's HTML pages (the
    admin's login form) name them through the manifest, without which they are a 500."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=BASE_DIR,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DEBUG": "false",
            "SECRET_KEY": "collectstatic-in-tests-0123456789-abcdefghijklmnopqrstuvwxyz",
        },
        check=True,
    )


@pytest.fixture
def staff_editor(editor, collected_static):
    """`editor`, with a password hash the servers check: they run production's hashers, and
    the test settings' MD5 is not among them (tests.support.admin.EDITOR_PASSWORD)."""
    editor.password = PBKDF2PasswordHasher().encode(EDITOR_PASSWORD, "servers", iterations=1000)
    editor.save(update_fields=["password"])
    return editor


@pytest.fixture
def pg_proxy() -> Iterator[FaultProxy]:
    """A cuttable link to the test database's PostgreSQL server."""
    settings_dict = connection.settings_dict
    with FaultProxy(
        settings_dict.get("HOST") or "127.0.0.1", int(settings_dict.get("PORT") or 5432)
    ) as proxy:
        yield proxy


@pytest.fixture
def redis_proxy(redis_url) -> Iterator[FaultProxy]:
    parts = urlsplit(redis_url)
    with FaultProxy(parts.hostname or "127.0.0.1", parts.port or 6379) as proxy:
        yield proxy


def redis_url_through(proxy: FaultProxy, redis_url: str) -> str:
    parts = urlsplit(redis_url)
    return parts._replace(netloc=f"127.0.0.1:{proxy.port}").geturl()


@pytest.fixture
def start_server(transactional_db, redis_url) -> Iterator[Callable[..., GunicornServer]]:
    """start_server(**env) -> a healthy gunicorn on the test database and Redis.

    The data a test creates is committed (transactional_db), so the server processes see it.
    `database_via`/`redis_via` route the server through a FaultProxy.
    """
    if not GunicornServer.config_exists():
        pytest.skip("config/gunicorn.conf.py is missing (it comes with the bench branch)")
    started: list[GunicornServer] = []

    def start(
        *,
        workers: int = 2,
        database_via: FaultProxy | None = None,
        redis_via: FaultProxy | None = None,
        **env: str,
    ) -> GunicornServer:
        port = database_via.port if database_via else None
        environment = {
            "DATABASE_URL": database_url(
                connection.settings_dict, host="127.0.0.1" if port else None, port=port
            ),
            "REDIS_URL": redis_url_through(redis_via, redis_url) if redis_via else redis_url,
            "RATE_LIMIT_ENABLED": "false",
            **env,
        }
        server = GunicornServer(env=environment, workers=workers)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
    # The database is flushed (and at the end dropped) next: wait until the servers' sessions
    # have really ended, which PostgreSQL notices a moment after their processes exit.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and other_sessions():
        time.sleep(0.1)


def other_sessions(*, waiting_for_a_lock: bool = False) -> int:
    """Sessions on the test database other than the test's own (the servers'); with
    `waiting_for_a_lock`, only those blocked on a lock."""
    sql = (
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    if waiting_for_a_lock:
        sql += " AND wait_event_type = 'Lock'"
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]
