"""The Celery tasks: one delivery attempt, and the periodic relay of the outbox."""

from __future__ import annotations

import logging

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


def enqueue(delivery_ids: list[int], *, countdown: float = 0) -> int:
    """Publish a task per delivery; how many reached the broker. Never raises: a broker that is
    down leaves the rows pending, and the relay hands them over once it is back."""
    sent: list[int] = []
    if not delivery_ids:
        return 0
    # No retries, of the message or of the connection (kombu's default_channel would otherwise
    # retry connecting for seconds): this runs right after a request's commit, which must not
    # wait for a broker that is down. The connection is this call's own, so that the worker's
    # connections keep their patient defaults.
    connection = app.connection_for_write(transport_options={"max_retries": 0})
    try:
        for delivery_id in delivery_ids:
            deliver.apply_async(
                (delivery_id,), countdown=countdown or None, retry=False, connection=connection
            )
            sent.append(delivery_id)
    except Exception as error:  # any broker failure: the relay hands the rest over later
        logger.warning(
            "%d webhook deliveries left for the relay, the broker refused them: %s",
            len(delivery_ids) - len(sent),
            error,
        )
    finally:
        connection.release()
    if sent:
        services.deliveries_mark_enqueued(delivery_ids=sent)
    return len(sent)
