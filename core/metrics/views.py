"""/metrics: the Prometheus exposition, for a scraper that presents METRICS_TOKEN
(docs/production.md, "Metrics")."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector

from core.metrics.multiprocess import multiproc_dir
from core.problems import problem_response

_CHALLENGE = 'Bearer realm="metrics"'


# Exempt so that a POST is its 405, not a CSRF refusal: no cookie or session is read here.
@csrf_exempt
@never_cache
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404("No route here.")
    scheme, _, offered = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer" or not offered:
        return _refused(request, "Send the metrics token: Authorization: Bearer <token>.", "")
    if not hmac.compare_digest(offered.strip().encode(), token.encode()):
        return _refused(request, "The metrics token is not the one configured.", "invalid_token")
    encoder, content_type = choose_encoder(request.META.get("HTTP_ACCEPT", ""))
    return HttpResponse(encoder(_registry()), content_type=content_type)


def _registry() -> CollectorRegistry:
    """Every gunicorn worker's values added up (multiprocess mode), or this process's."""
    directory = multiproc_dir()
    if directory is None:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(directory))
    return registry


def _refused(request: HttpRequest, detail: str, error: str) -> HttpResponse:
    # RFC 6750 3.1: no credentials is a bare challenge; a wrong token says invalid_token.
    challenge = f'{_CHALLENGE}, error="{error}"' if error else _CHALLENGE
    return problem_response(
        request, status=401, detail=detail, headers={"WWW-Authenticate": challenge}
    )
