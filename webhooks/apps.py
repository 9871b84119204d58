from django.apps import AppConfig
from django.conf import settings


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from articles import signals
        from rest.docs import document
        from webhooks import checks  # noqa: F401 (registers the system checks)
        from webhooks.api import rels
        from webhooks.events import on_change
        from webhooks.models import webhook_subscribers

        # The article services announce their writes; the outbox rows join their transaction.
        signals.changed.connect(on_change, dispatch_uid="webhooks.events.on_change")
        signals.blog_annotations["webhooks_wanted"] = webhook_subscribers
        document(rels.RELATIONS)

        # The serverless broker of `make run` keeps its messages in a folder that must exist
        # before a web process publishes or a worker reads.
        if settings.CELERY_BROKER_URL.startswith("filesystem://"):
            (settings.CELERY_BROKER_FOLDER / "control").mkdir(parents=True, exist_ok=True)
