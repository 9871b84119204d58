"""X-Access-Token authentication for writes."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from blogs.models import AccessToken
from blogs.services import token_authenticate

HEADER = "X-Access-Token"


class AccessTokenAuthentication(BaseAuthentication):
    """Authenticates writes by `X-Access-Token`; reads are public and never look at a token.

    `authenticate_header` is what makes DRF answer 401 (with WWW-Authenticate) instead of 403.
    """

    def authenticate(self, request: Request) -> tuple[object, AccessToken] | None:
        if request.method in SAFE_METHODS:
            return None
        return self.authenticate_token(request)

    def authenticate_token(self, request: Request) -> tuple[object, AccessToken] | None:
        """The token's user, whatever the method; None without the header."""
        plain = request.headers.get(HEADER)
        if plain is None:
            return None  # the permission then answers 401 for a write
        token = token_authenticate(plain=plain.strip())
        if token is None:
            raise exceptions.AuthenticationFailed(
                "The access token is unknown, revoked or expired."
            )
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return f'{HEADER} realm="api"'
