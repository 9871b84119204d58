"""The site's own pages for people: the front door at `/`, the 404 page a browser gets outside
the API, and the redirects from the few paths people type without their trailing slash."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.views.decorators.http import require_safe


@require_safe
def front_door(request: HttpRequest) -> HttpResponse:
    """`/`: a page linking every surface; the admin's "View site" (AdminSite.site_url, "/")
    leads here."""
    return render(request, "site/front_door.html")


def to_slash_form(request: HttpRequest) -> HttpResponse:
    """`/admin` -> `/admin/` and the like, query string kept. GET and HEAD get a 301, as Django's
    APPEND_SLASH would send; any other method a 308 (RFC 9110 15.4.9), so that a POST is not
    turned into a GET on the way."""
    location = request.get_full_path(force_append_slash=True)
    preserve = request.method not in ("GET", "HEAD")
    return HttpResponsePermanentRedirect(location, preserve_request=preserve)


def not_found_page(request: HttpRequest) -> HttpResponse:
    return render(request, "site/not_found.html", status=404)
