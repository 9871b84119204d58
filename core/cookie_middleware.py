"""Django's cookie-based middlewares (sessions, auth, messages), skipped on the machine
surfaces. (CSRF stays Django's own class: the machine views are csrf_exempt.)

The REST API, GraphQL, SOAP and /healthz authenticate by header (X-Access-Token) or not at all,
and never read or set a cookie. Sessions, the CSRF check, `request.user` from the session and
flash messages exist for the cookie-based HTML pages (the admin); on the machine surfaces they
did nothing but cost time: about a third of a SOAP request's CPU (messages alone build a signed
cookie storage on every request). CSRF protects requests that carry an ambient credential, a
cookie; without the session middleware there is none on these paths.

Each class subclasses the Django middleware it stands for, so Django's checks that look for
"a subclass of SessionMiddleware" and so on still find them, and the HTML pages get exactly
Django's behaviour.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse

from core.surfaces import surface_of


class _SkippedOnMachinePaths:
    get_response: Callable[[HttpRequest], HttpResponse]

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not surface_of(request.path_info).cookies:
            return self.get_response(request)
        return super().__call__(request)  # type: ignore[misc]


class HtmlSessionMiddleware(_SkippedOnMachinePaths, SessionMiddleware):
    pass


class HtmlAuthenticationMiddleware(_SkippedOnMachinePaths, AuthenticationMiddleware):
    pass


class HtmlMessageMiddleware(_SkippedOnMachinePaths, MessageMiddleware):
    pass
