"""WSGI entry point; gunicorn serves `config.wsgi:application` (Django's handler, one path for
every request)."""

import os

from django.core.wsgi import get_wsgi_application

from core import tracing

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

tracing.setup()  # before the handler builds its middleware chain (core/tracing)

application = get_wsgi_application()
