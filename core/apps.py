from django.apps import AppConfig
from django.conf import settings
from django.db.backends.signals import connection_created


class CoreConfig(AppConfig):
    """The platform: its models are the shared store's table (core.store) and the outbox of the
    edge's purges (core.edge_purge)."""

    name = "core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core.db_router import forget_replayed_position

        # A new connection to the replica may reach another server: what was known of replay
        # on the old one is forgotten.
        connection_created.connect(forget_replayed_position, dispatch_uid="replica-replayed")

        # The serverless broker of `make run` keeps its messages in a folder that must exist
        # before a web process publishes (core.broker) or a worker reads.
        if settings.CELERY_BROKER_URL.startswith("filesystem://"):
            (settings.CELERY_BROKER_FOLDER / "control").mkdir(parents=True, exist_ok=True)

        # With an edge in front every write publishes its purge: the broker's app is loaded now
        # rather than by the first write (about 0.4 s). Otherwise by the first publish
        # (core.broker), which a worker without webhooks or scheduled drafts never makes.
        if settings.EDGE_PURGE_URLS:
            from core import broker

            broker.app()
