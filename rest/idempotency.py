"""`Idempotency-Key` on POST (draft-ietf-httpapi-idempotency-key-header).

The first request with a key stores an in-flight marker with `cache.add` (atomic: of two racing
requests exactly one gets it); a retry that finds it gets 409, one after the first succeeded its
status, headers and body again. The rest of the contract (per token, 422, 503): docs/rest.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.response import Response

from rest.exceptions import RequestInProgress, ServiceUnavailable, UnprocessableContent

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
IN_FLIGHT_SECONDS = 60  # longer than any request; a crashed worker's marker expires by itself
_VALID_KEY = re.compile(r"[\x21-\x7e]{1,255}")
_REPLAYED_HEADERS = ("Location", "ETag", "Last-Modified")


class InvalidIdempotencyKey(UnprocessableContent):
    status_code = 400


def _fingerprint(request: Request) -> str:
    body = json.dumps(request.data, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(f"{request.path}\n{body}".encode()).hexdigest()


def run_idempotent(request: Request, produce: Callable[[], Response]) -> Response:
    key = request.headers.get(HEADER)
    if key is None:
        return produce()
    if not _VALID_KEY.fullmatch(key):
        raise InvalidIdempotencyKey({HEADER: ["Must be 1 to 255 visible ASCII characters."]})
    cache_key = f"idempotency:{request.auth.pk}:{hashlib.sha256(key.encode()).hexdigest()}"
    fingerprint = _fingerprint(request)
    try:
        first = cache.add(
            cache_key, {"state": "in-flight", "fingerprint": fingerprint}, IN_FLIGHT_SECONDS
        )
        stored = None if first else cache.get(cache_key)
    except Exception:  # Redis down: see the module docstring
        logger.warning("idempotency cache unreachable", exc_info=True)
        raise ServiceUnavailable("Idempotency-Key cannot be honoured right now.") from None
    if not first:
        if stored is None or stored["state"] == "in-flight":
            raise RequestInProgress()
        if stored["fingerprint"] != fingerprint:
            raise UnprocessableContent(
                {HEADER: ["This key was already used for a different request."]}
            )
        headers = {**stored["headers"], "Idempotent-Replayed": "true"}
        return Response(stored["data"], status=stored["status"], headers=headers)
    try:
        response = produce()
    except BaseException:
        cache.delete(cache_key)
        raise
    if 200 <= response.status_code < 300:
        cache.set(
            cache_key,
            {
                "state": "done",
                "fingerprint": fingerprint,
                "status": response.status_code,
                "data": response.data,
                "headers": {h: response[h] for h in _REPLAYED_HEADERS if h in response},
            },
            settings.IDEMPOTENCY_KEY_TTL_SECONDS,
        )
    else:
        cache.delete(cache_key)
    return response
