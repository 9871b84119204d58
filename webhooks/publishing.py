"""Handing deliveries to the broker: after a write's commit (webhooks.outbox) and from the relay
(webhooks.tasks). By task name, so that the outbox needs neither the tasks nor the services."""

from __future__ import annotations

import logging
import os
from typing import Any

from django.utils import timezone

from config.celery import app
from webhooks.models import Delivery

logger = logging.getLogger(__name__)

DELIVER_TASK = "webhooks.deliver"


def enqueue(delivery_ids: list[int], *, countdown: float = 0) -> int:
    """Publish a task per delivery; how many reached the broker. Never raises: a broker that is
    down leaves the rows pending, and the relay hands them over once it is back."""
    sent: list[int] = []
    if not delivery_ids:
        return 0
    try:
        with _publishing_pool().acquire(block=True, timeout=2) as connection:
            try:
                for delivery_id in delivery_ids:
                    app.send_task(
                        DELIVER_TASK,
                        (delivery_id,),
                        countdown=countdown or None,
                        retry=False,
                        connection=connection,
                    )
                    sent.append(delivery_id)
            except Exception:
                # Whatever state the connection is in, the next use connects afresh.
                connection.close()
                raise
    except Exception as error:  # any broker failure: the relay hands the rest over later
        logger.warning(
            "%d webhook deliveries left for the relay, the broker refused them: %s",
            len(delivery_ids) - len(sent),
            error,
        )
    if sent:
        Delivery.objects.filter(pk__in=sent).update(enqueued_at=timezone.now())
    return len(sent)


_pools: dict[int, Any] = {}


def _publishing_pool() -> Any:
    """This process's pool of publishing connections that never retry (kombu would otherwise
    retry connecting for seconds): a publish runs right after a request's commit, which must not
    wait for a broker that is down. Per process id: a pool made before a fork is not shared."""
    pid = os.getpid()
    pool = _pools.get(pid)
    if pool is None:
        connection = app.connection_for_write(transport_options={"max_retries": 0})
        pool = _pools[pid] = connection.Pool(limit=app.conf.broker_pool_limit)
    return pool
