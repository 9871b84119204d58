"""The *limit* baseline: a bare WSGI callable that answers recorded bytes.

The harness records the service's own responses (article, pages) into the JSON file named by
BENCH_LIMIT_BODIES before the load starts; this app returns exactly those bytes for the same
path and query. Nothing is computed per request, so it measures gunicorn and the network alone.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Iterable

with open(os.environ["BENCH_LIMIT_BODIES"], encoding="utf-8") as recorded:
    _RESPONSES = {
        target: (
            f"{entry['status']} OK",
            [
                ("Content-Type", entry["content_type"]),
                ("Content-Length", str(len(base64.b64decode(entry["body"])))),
            ],
            base64.b64decode(entry["body"]),
        )
        for target, entry in json.load(recorded).items()
    }

_NOT_FOUND = ("404 Not Found", [("Content-Type", "text/plain"), ("Content-Length", "0")], b"")


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    target = environ.get("PATH_INFO", "")
    if environ.get("QUERY_STRING"):
        target = f"{target}?{environ['QUERY_STRING']}"
    status, headers, body = _RESPONSES.get(target, _NOT_FOUND)
    start_response(status, headers)
    return [body]
