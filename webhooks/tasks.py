"""The Celery tasks: one delivery attempt, and the periodic relay of the outbox."""

from __future__ import annotations

from config.celery import app
from webhooks import services
from webhooks.publishing import enqueue


# acks_late: the message is acknowledged when the attempt is over, so that a worker killed in
# the middle leaves it to the broker for another; reject_on_worker_lost requeues it at once when
# the pool's child dies. A second run of the same delivery is harmless (services._claim).
@app.task(name="webhooks.deliver", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def deliver(delivery_id: int) -> None:
    services.delivery_attempt(delivery_id=delivery_id)


@app.task(name="webhooks.relay", ignore_result=True)
def relay() -> int:
    """Hand over the deliveries that never reached the broker or whose attempt is overdue."""
    return enqueue(services.deliveries_to_relay())


@app.task(name="webhooks.purge", ignore_result=True)
def purge() -> int:
    """Forget the events (with their deliveries and attempts) older than WEBHOOK_KEEP_DAYS."""
    return services.events_purge()
