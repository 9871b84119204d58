"""The Celery tasks: one delivery attempt, and the periodic relay of the outbox."""

from __future__ import annotations

import logging
import os
from typing import Any

from config.celery import app
from webhooks import services

logger = logging.getLogger(__name__)


# acks_late: the message is acknowledged when the attempt is over, so that a worker killed in
# the middle leaves it to the broker for another; reject_on_worker_lost requeues it at once when
# the pool's child dies. A second run of the same delivery is harmless (services._claim).
@app.task(name="webhooks.deliver", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver(delivery_id: int) -> None:
    services.delivery_attempt(delivery_id=delivery_id)


@app.task(name="webhooks.relay", ignore_result=True)
def relay() -> int:
    """Hand over the deliveries that never reached the broker or whose attempt is overdue."""
    ids = services.deliveries_to_relay()
    return enqueue(ids)


@app.task(name="webhooks.purge", ignore_result=True)
def purge() -> int:
    """Forget the events (with their deliveries and attempts) older than WEBHOOK_KEEP_DAYS."""
    return services.events_purge()


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
                    deliver.apply_async(
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
        services.deliveries_mark_enqueued(delivery_ids=sent)
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
