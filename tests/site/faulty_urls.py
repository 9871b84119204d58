"""The site's URL conf with one page that fails: the HTML 500 of tests/site/test_error_pages.py."""

from __future__ import annotations

from django.urls import path

from config.urls import handler404, handler500
from config.urls import urlpatterns as site_urlpatterns

__all__ = ["handler404", "handler500", "urlpatterns"]


def broken_page(request):
    raise RuntimeError("a fault of the page")


urlpatterns = [path("broken-page", broken_page), *site_urlpatterns]
