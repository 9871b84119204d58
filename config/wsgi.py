"""WSGI entry point; gunicorn serves `config.wsgi:application` (Django's handler, one path for
every request)."""

import os

from django.core.wsgi import get_wsgi_application

from core import tracing

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

# Traces, when OTEL_* ask for them: before the handler builds its middleware chain, which the
# instrumentation joins (core/tracing). Every server loads the application from here: gunicorn
# (its workers start exporting after the fork) and runserver.
tracing.setup()

application = get_wsgi_application()
