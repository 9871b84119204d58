"""The request being served, for its log lines and trace spans: a context variable, since a log
call or a database driver deep inside a service has no request to look at."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class RequestContext:
    request_id: str
    # The request's server span (its first span), when the request is traced and sampled: the
    # request's log lines name it, the request line included, which is written after it ends.
    trace_id: str | None = None
    span_id: str | None = None


current_request: ContextVar[RequestContext | None] = ContextVar("current_request", default=None)
