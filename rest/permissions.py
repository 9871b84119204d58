from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request


class WritesNeedToken(BasePermission):
    """Reads are public; every write needs an authenticated token (else 401)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or request.auth is not None


class EveryMethodNeedsToken(BasePermission):
    """Reads too need an authenticated token (else 401); OPTIONS stays open."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method == "OPTIONS" or request.auth is not None
