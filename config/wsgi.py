"""WSGI entry point; gunicorn serves `config.wsgi:application`.

POST /soap/calculator takes the lean route of config/lean.py (the site's middlewares around the
view, without the handler's per-request overhead); everything else is Django's handler.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

django_application = get_wsgi_application()

from django.urls import reverse  # noqa: E402 (after the settings are set up)

from config.lean import LeanRoute, SiteApplication  # noqa: E402
from soapcalc.views import calculator  # noqa: E402

# The route's path comes from the URLconf, so both always agree.
# Idle on this route: the 501 check (POST is implemented) and the two that act under /api/ only.
SOAP_POST_IDLE = frozenset(
    {
        "config.middleware.NotImplementedMethodMiddleware",
        "config.middleware.ApiBodySizeLimitMiddleware",
        "config.middleware.ApiProblemFallbackMiddleware",
    }
)
application = SiteApplication(
    django_application,
    {("POST", reverse("soap-calculator")): LeanRoute(calculator, idle=SOAP_POST_IDLE)},
)
