"""GET /healthz: is this process able to serve, and does the database answer?"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.warning("health check: database unreachable", exc_info=True)
        response = JsonResponse({"status": "unavailable", "database": "unreachable"}, status=503)
        response["Retry-After"] = "5"
        return response
    return JsonResponse({"status": "ok", "database": "ok"})
