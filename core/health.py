"""The health endpoints /livez, /readyz and /healthz (docs/production.md). CSRF-exempt, as
/metrics is: no cookie is read here, and a POST must get its 405, not CSRF's HTML page."""

from __future__ import annotations

import logging
import secrets
import time

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = "5"

# When a worker last ran the heartbeat task that beat schedules (core.tasks.worker_heartbeat):
# seconds since the epoch, in the shared store that the web and the worker processes both reach.
WORKER_SEEN_KEY = "health:worker-seen"
# Before any heartbeat, a worker starting beside this server is given until the bound from here.
_STARTED = time.time()


def _unavailable(body: dict[str, object]) -> JsonResponse:
    response = JsonResponse({"status": "unavailable", **body}, status=503)
    response["Retry-After"] = RETRY_AFTER_SECONDS
    return response


def database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.warning("health check: database unreachable", exc_info=True)
        return "unreachable"
    return "ok"


def cache_check() -> str:
    key, value = "health:probe", secrets.token_hex(8)
    try:
        cache.set(key, value, 10)
        answered = cache.get(key)
    except Exception:  # any backend's connection error: the check's answer, not a 500
        logger.warning("health check: cache unreachable", exc_info=True)
        return "unreachable"
    # Another process may have written its own probe in between: any probe value means it works.
    return "ok" if answered is not None else "not storing"


def migrations_check() -> str:
    """ "ok", or the migrations not applied yet (the database must answer)."""
    executor = MigrationExecutor(connection)
    loader = executor.loader
    # Every migration of the graph that is not recorded, not only the plan to the leaves: a
    # plan skips an unrecorded migration whose descendants are recorded (a history that a
    # restore or a hand edit left inconsistent), which is just as unready.
    pending = [
        key
        for leaf in loader.graph.leaf_nodes()
        for key in loader.graph.forwards_plan(leaf)
        if key not in loader.applied_migrations
    ]
    if pending:
        unique = list(dict.fromkeys(pending))
        return "pending: " + ", ".join(f"{app}.{name}" for app, name in unique)
    return "ok"


def worker_seen() -> None:
    """The heartbeat: a worker is running tasks now."""
    cache.set(WORKER_SEEN_KEY, time.time(), None)


def worker_check() -> str:
    """ "ok", or how long no worker has run the heartbeat, past settings.WORKER_UNSEEN_SECONDS."""
    try:
        seen = cache.get(WORKER_SEEN_KEY)
    except Exception:  # any backend's connection error: the cache check names it
        return "unknown (no cache)"
    since = time.time() - (seen or _STARTED)
    if since <= settings.WORKER_UNSEEN_SECONDS:
        return "ok"
    if seen is None:
        return f"not seen in the {since:.0f} s since this server started"
    return f"not seen for {since:.0f} s"


@csrf_exempt
@never_cache
@require_safe
def livez(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@csrf_exempt
@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    checks = {"database": database_check(), "cache": cache_check()}
    checks["migrations"] = (
        migrations_check() if checks["database"] == "ok" else "unknown (no database)"
    )
    if settings.WORKER_UNSEEN_SECONDS:  # a topology with a worker (and beat) says so
        checks["worker"] = worker_check()
    if all(answer == "ok" for answer in checks.values()):
        return JsonResponse({"status": "ok", "checks": checks})
    return _unavailable({"checks": checks, "failing": [k for k, v in checks.items() if v != "ok"]})


@csrf_exempt
@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    if (database := database_check()) != "ok":
        return _unavailable({"database": database})
    return JsonResponse({"status": "ok", "database": "ok"})
