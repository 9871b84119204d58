"""The one way work is handed to the Celery broker: by task name (the publisher needs none of the
task's code), over this process's own connections that never retry. A publish runs right after
a request's commit, which must not wait for a broker that is down: the rows behind the messages
stay in their outbox, and a periodic relay hands them over later (webhooks.outbox,
core.edge_purge).

The Celery app (settings.BROKER_APP) is imported on the first publish, not with Django: a web
worker that never publishes carries none of Celery."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


def send(
    task_name: str,
    calls: Sequence[tuple[Any, ...]],
    *,
    countdown: float = 0,
    what: str | None = None,
) -> int:
    """Publish one `task_name` message per argument tuple of `calls`, in order; how many reached
    the broker (the first ones). Never raises: a broker failure is logged as "<n> <what> left for
    the relay" (`what`: the task's messages unless named)."""
    sent = 0
    if not calls:
        return 0
    publisher = app()
    try:
        with _publishing_pool(publisher).acquire(block=True, timeout=2) as connection:
            try:
                for args in calls:
                    publisher.send_task(
                        task_name,
                        args,
                        countdown=countdown or None,
                        retry=False,
                        connection=connection,
                    )
                    sent += 1
            except Exception:
                # Whatever state the connection is in, the next use connects afresh.
                connection.close()
                raise
    except Exception as error:  # any broker failure: the relay hands the rest over later
        logger.warning(
            "%d %s left for the relay, the broker refused them: %s",
            len(calls) - sent,
            what or f"{task_name} messages",
            error,
        )
    return sent


def app() -> Any:
    """The project's Celery app (settings.BROKER_APP), imported on its first use."""
    return import_string(settings.BROKER_APP)


_pools: dict[int, Any] = {}


def _publishing_pool(app: Any) -> Any:
    """This process's pool of publishing connections that never retry (kombu would otherwise
    retry connecting for seconds). Per process id: a pool made before a fork is not shared."""
    pid = os.getpid()
    pool = _pools.get(pid)
    if pool is None:
        connection = app.connection_for_write(transport_options={"max_retries": 0})
        pool = _pools[pid] = connection.Pool(limit=app.conf.broker_pool_limit)
    return pool
