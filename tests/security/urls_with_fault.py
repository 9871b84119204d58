"""The site's URLs plus two views that fail, to see what a client gets from a real fault."""

from django.urls import path

from config.urls import *  # noqa: F403
from config.urls import urlpatterns as site_urlpatterns


def fault(request, **kwargs):
    raise RuntimeError("secret-detail-of-the-fault in /work/app/settings.py")


urlpatterns = [path("fault", fault), path("api/v1.2/fault", fault), *site_urlpatterns]
