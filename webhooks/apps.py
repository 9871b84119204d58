from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from articles import signals
        from rest.docs import document
        from rest.exceptions import register
        from webhooks import checks, services  # noqa: F401 (checks registers the system checks)
        from webhooks.api import rels
        from webhooks.events import on_change
        from webhooks.models import webhook_subscribers

        # The article services announce their writes; the outbox rows join their transaction.
        signals.changed.connect(on_change, dispatch_uid="webhooks.events.on_change")
        signals.blog_annotations["webhooks_wanted"] = webhook_subscribers
        document(rels.RELATIONS)
        # How the REST surface answers the services' refusals (the exception says why).
        register(services.SubscriptionLimitReached, status=409, slug="webhook-limit-reached")
        register(services.DeliveryNotFailed, status=409, slug="not-redeliverable")
        register(services.SubscriptionDisabled, status=409, slug="not-redeliverable")
