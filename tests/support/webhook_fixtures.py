"""pytest fixtures over tests/support/webhooks.py (imported by tests/reliability/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.db import connection

from tests.support.servers import database_url
from tests.support.webhooks import WEBHOOK_TEST_SETTINGS, CeleryProcess, Receiver, RedisServer


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    """An own redis-server as the Celery broker, that the test may stop and start again."""
    if not RedisServer.available():
        pytest.skip(
            "needs redis-server (Debian package redis-server): the tests run a broker of their "
            "own, on a free port, so that they can stop it"
        )
    with RedisServer() as server:
        yield server


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


@pytest.fixture
def webhook_env(broker) -> dict[str, str]:
    """The environment of the service's processes in a webhook test: the own broker and
    WEBHOOK_TEST_SETTINGS (pass it to start_server and start_celery)."""
    return {"CELERY_BROKER_URL": broker.url(), **WEBHOOK_TEST_SETTINGS}


@pytest.fixture
def start_celery(start_server, redis_url, webhook_env) -> Iterator[Callable[..., CeleryProcess]]:
    """start_celery("worker" | "beat", *args, **env) -> a started Celery process on the test
    database, the test's Redis (cache) and the own broker; all of them are killed at the end.
    `exact=True` runs `celery -A config <kind> <args>` with nothing added."""
    started: list[CeleryProcess] = []

    def start(kind: str = "worker", *args: str, exact: bool = False, **env: str) -> CeleryProcess:
        if kind == "worker" and not exact and not any(a.startswith("--concurrency") for a in args):
            args = ("--concurrency=2", *args)
        environment = {
            "DATABASE_URL": database_url(connection.settings_dict),
            "REDIS_URL": redis_url,
            **webhook_env,
            **env,
        }
        process = CeleryProcess(env=environment, args=[kind, *args], exact=exact)
        started.append(process)
        return process.start()

    yield start
    # Torn down before start_server (which it depends on for that), whose teardown then waits
    # until every session of the servers and of these processes has ended.
    for process in started:
        process.kill()
