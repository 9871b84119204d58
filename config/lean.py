"""A lean WSGI route for the SOAP operation: POST /soap/calculator.

Through Django's handler a SOAP AddValues POST cost about 350 µs of CPU, of which the SOAP view
(parse, checks, answer) is about 85 µs; a bare lxml WSGI app answers it in 20 µs. Most of the
rest is the handler's own work per request (URL resolution, the request_started signal, a
convert-exception wrapper per middleware) and middlewares that do nothing on this path. This
route serves that one method and path with the *same* site-wide middleware instances, composed
the way Django composes them (each wrapped by convert_exception_to_response, so an exception
becomes the same response), around the view called directly:

- every response still passes RequestIdMiddleware (X-Request-ID, the request's log line), the
  501 check, SecurityMiddleware, CommonMiddleware (host validation, Content-Length),
  XFrameOptionsMiddleware and the CSP middleware, in settings.MIDDLEWARE's order;
- left out are only the middlewares that never act on a machine path (NOT_ON_MACHINE_PATHS);
- there is no URL resolution (the route is one exact path) and no request signals: their
  receivers reset the query log, close stale database connections and caches and reset the
  URLconf, and the SOAP view uses no database, cache or URLconf of its own (the next request
  through Django's handler closes stale connections when it starts). An in-memory body is
  handed to the server as bytes and the request's files are closed at once; sending
  request_finished from the response's close() was a tenth of the worker's CPU per request
  under gunicorn. 4xx/5xx are logged to django.request as the handler would.

Everything else (other methods, other paths) goes to Django's handler unchanged.
tests/soap/test_lean_route.py sends the same requests through both and compares the answers.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest, get_script_name
from django.http import HttpRequest, HttpResponse
from django.urls import set_script_prefix
from django.utils.http import parse_header_parameters
from django.utils.log import log_response
from django.utils.module_loading import import_string

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

# Middlewares that never act on a machine path: whitenoise serves STATIC_URL; the cookie-based
# three skip these paths (config.cookie_middleware); CSRF acts in process_view, which a lean
# route never calls (every machine view is csrf_exempt anyway), and would only read the cookie;
# django-axes acts on admin logins only.
NOT_ON_MACHINE_PATHS = frozenset(
    {
        "whitenoise.middleware.WhiteNoiseMiddleware",
        "config.cookie_middleware.HtmlSessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "config.cookie_middleware.HtmlAuthenticationMiddleware",
        "config.cookie_middleware.HtmlMessageMiddleware",
        "axes.middleware.AxesMiddleware",
    }
)


@lru_cache(maxsize=64)
def _content_type(header: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    media_type, params = parse_header_parameters(header)
    return media_type, tuple(params.items())


class _Request(WSGIRequest):
    """Django's request, with the Content-Type parse (Django's own function, through the email
    package: a fifth of the lean route's CPU) kept per header value, since clients repeat one
    Content-Type. The rest is HttpRequest._set_content_type_params of Django 5.2, except that
    the charset is stored without the `encoding` setter: the setter drops the parsed query
    string and POST data, and asking whether they exist (hasattr) parses the query string first,
    all for nothing while the request is being built. The differential tests compare the
    outcome with Django's request."""

    def _set_content_type_params(self, meta: dict[str, Any]) -> None:
        media_type, params = _content_type(meta.get("CONTENT_TYPE", ""))
        self.content_type, self.content_params = media_type, dict(params)
        if "charset" in self.content_params:
            try:
                codecs.lookup(self.content_params["charset"])
            except LookupError:
                pass
            else:
                self._encoding = self.content_params["charset"]


def machine_chain(
    view: Callable[[HttpRequest], HttpResponse], idle: frozenset[str] = frozenset()
) -> Callable[..., HttpResponse]:
    """settings.MIDDLEWARE without NOT_ON_MACHINE_PATHS and `idle` (middlewares that never act
    on the route) around `view`, as Django builds it."""
    chain = convert_exception_to_response(view)
    for path in reversed(settings.MIDDLEWARE):
        if path not in NOT_ON_MACHINE_PATHS and path not in idle:
            chain = convert_exception_to_response(import_string(path)(chain))
    return chain


class LeanRoute:
    """One view behind the machine middleware chain, as a WSGI application."""

    def __init__(
        self, view: Callable[[HttpRequest], HttpResponse], idle: frozenset[str] = frozenset()
    ) -> None:
        self.chain = machine_chain(view, idle)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        set_script_prefix(get_script_name(environ))
        request = _Request(environ)
        response = self.chain(request)
        if response.streaming:
            response._resource_closers.append(request.close)
            body: Iterable[bytes] = response
        else:
            body = [response.content]
            request.close()
        if response.status_code >= 400:
            log_response(
                "%s: %s", response.reason_phrase, request.path, response=response, request=request
            )
        start_response(
            f"{response.status_code} {response.reason_phrase}",
            [
                *response.items(),
                *(("Set-Cookie", c.output(header="")) for c in response.cookies.values()),
            ],
        )
        return body


class SiteApplication:
    """The site's WSGI application: lean routes by (method, path), Django for the rest."""

    def __init__(self, django: WSGIHandler, routes: dict[tuple[str, str], WSGIApp]) -> None:
        self.django = django
        self.routes = routes

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        route = self.routes.get((environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", "")))
        if route is None:
            return self.django(environ, start_response)
        return route(environ, start_response)
