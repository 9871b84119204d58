"""Django's cookie-based middlewares (sessions, auth, messages), skipped on the machine
surfaces, which read no cookie: there they cost about a third of a SOAP request's CPU. (CSRF
stays Django's own class: the machine views are csrf_exempt.) Subclasses, so that Django's
checks for "a subclass of SessionMiddleware" and so on still find them.
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
