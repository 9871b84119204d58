# The Celery app is loaded with Django, so that the web processes hand deliveries to the same
# broker the workers read (webhooks.tasks); `celery -A config` finds it here.
from config.celery import app as celery_app

__all__ = ["celery_app"]
