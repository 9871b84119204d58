"""WSGI entry point; gunicorn serves `config.wsgi:application` (Django's handler, one path for
every request)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

application = get_wsgi_application()
