"""GET of an article and of a page of a blog's articles without DRF's dispatch, when nothing in
the request needs it.

These two reads are most of a blog's traffic. DRF's dispatch around them (wrapping the request,
content negotiation, versioning, authentication, permission and throttle classes, the renderer
through the response) costs more than reading the rows. For the common request (a GET whose
Accept names HAL, JSON or anything, within the rate limit, of a live article or a valid page
of an existing blog) the view answers here, with the pieces its DRF method uses: the same
selectors, validators, representation, rate limiter and renderer classes, and the view's own
`Allow` and `Vary`. The answer is byte for byte DRF's (tests/rest/test_fast_reads.py sends each
request both ways and compares status, headers and body).

Everything else goes to DRF's dispatch unchanged, which then decides as it always did: another
method, another Accept (HTML, a version parameter, q-values, several types), maintenance mode,
a client over its rate limit, a missing blog or article, a deleted one. A bad query parameter,
a failed precondition and a database error raised on the way are answered by the API's
exception handler with DRF's headers, as DRF's dispatch would answer them, without running the
request again. The request is counted against the rate limit once whichever path answers
(throttling.count_request keeps the count on the request).
API_FAST_READS=false sends every request to DRF.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from rest_framework.exceptions import APIException
from rest_framework.renderers import BaseRenderer

from articles.api.negotiation import HalJsonRenderer, PlainJsonRenderer
from articles.api.problems import exception_handler
from articles.api.throttling import count_read

# The Accept headers answered here (None: no Accept), and the renderer DRF's negotiation
# chooses for each of them.
RENDERERS: dict[str | None, type[BaseRenderer]] = {
    None: HalJsonRenderer,
    "*/*": HalJsonRenderer,
    HalJsonRenderer.media_type: HalJsonRenderer,
    PlainJsonRenderer.media_type: PlainJsonRenderer,
}


def render(renderer: type[BaseRenderer], data: dict[str, Any]) -> HttpResponse:
    """`data` as DRF's Response renders it with `renderer` (a JSON renderer: no charset)."""
    return HttpResponse(renderer().render(data), content_type=renderer.media_type)


class FastReads:
    """For an ApiView: GET answered by `fast_get` when it can, by DRF's dispatch otherwise."""

    def fast_get(
        self, request: HttpRequest, renderer: type[BaseRenderer], **kwargs: Any
    ) -> HttpResponse | None:
        """The answer (a 200 or a 304), or None to let DRF answer (a missing or deleted
        article, a missing blog); an APIException or a DatabaseError it raises is answered by
        the API's exception handler, as DRF would."""
        raise NotImplementedError

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "GET" and settings.API_FAST_READS:
            response = self._fast_dispatch(request, **kwargs)
            if response is not None:
                return response
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]

    def _fast_dispatch(self, request: HttpRequest, **kwargs: Any) -> HttpResponse | None:
        renderer = RENDERERS.get(request.META.get("HTTP_ACCEPT"))
        if renderer is None or settings.MAINTENANCE_MODE:
            return None
        limit = count_read(request)
        if limit is not None and limit.exceeded:
            return None
        try:
            response = self.fast_get(request, renderer, **kwargs)
        except (APIException, DatabaseError) as refused:
            # DRF's dispatch would answer with its exception handler: answered here with it
            # directly, without running the request a second time (during a database outage
            # that second try would wait for the connection timeout again).
            response = exception_handler(refused, {"request": request, "view": self})
        if response is None:
            return None
        # What DRF's finalize_response and ApiView.finalize_response add.
        headers = self.default_response_headers  # type: ignore[attr-defined]
        vary = headers.pop("Vary", None)
        if vary is not None:
            patch_vary_headers(response, [vary])
        for name, value in headers.items():
            response[name] = value
        if limit is not None:
            for name, value in limit.headers().items():
                response[name] = value
        return response
