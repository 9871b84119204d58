"""/readyz sees the worker (issue 40, point 6; core/health.py): under gunicorn, with a real Celery
worker and beat on the test's Redis, the "worker" check is ok while the worker runs beat's
heartbeat, fails naming how long it has not been seen once the worker is killed, and is ok again
after it starts anew. A server told of no worker has no such check.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.support.webhooks import wait_until

pytestmark = [pytest.mark.servers, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

HEARTBEAT = {"WORKER_HEARTBEAT_SECONDS": "1"}
UNSEEN = "4"  # seconds


def readyz(server) -> tuple[int, dict]:
    reply = server.request("GET", "/readyz")
    return reply.status, json.loads(reply.body)


def test_readyz_fails_while_the_worker_is_gone_and_recovers_when_it_is_back(
    start_server, start_celery
):
    server = start_server(workers=1, WORKER_UNSEEN_SECONDS=UNSEEN, **HEARTBEAT)
    worker = start_celery("worker", **HEARTBEAT)
    start_celery("beat", **HEARTBEAT)

    ran = "core.worker_heartbeat["
    wait_until(lambda: ran in worker.log(), timeout=30, what="the worker to run a heartbeat")
    wait_until_status(server, 200, "ok", timeout=30)
    worker.kill()  # SIGKILL, as a crash or the OOM killer would
    _, body = wait_until_status(server, 503, "not seen for ", timeout=30)
    assert body["failing"] == ["worker"], body
    assert re.fullmatch(r"not seen for \d+ s", body["checks"]["worker"]), body
    assert int(body["checks"]["worker"].split()[3]) >= int(UNSEEN)

    worker.start()  # anew, with a log of its own
    wait_until(lambda: ran in worker.log(), timeout=30, what="the new worker to run a heartbeat")
    wait_until_status(server, 200, "ok", timeout=30)


def test_readyz_has_no_worker_check_where_no_worker_is_expected(start_server):
    status, body = readyz(start_server(workers=1))
    assert status == 200, body
    assert set(body["checks"]) == {"database", "cache", "migrations"}


def wait_until_status(server, status: int, worker: str, *, timeout: float) -> tuple[int, dict]:
    last: list[tuple[int, dict]] = []

    def answered() -> tuple[int, dict] | None:
        last[:] = [readyz(server)]
        got, body = last[0]
        return (
            last[0]
            if got == status and body["checks"].get("worker", "").startswith(worker)
            else None
        )

    try:
        return wait_until(answered, timeout=timeout, what=f"/readyz {status}, worker {worker!r}")
    except AssertionError as error:
        raise AssertionError(f"{error}; the last answer: {last}") from None
