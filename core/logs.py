"""Log formatting: one record is one line, whatever a client put in a path or a header."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime

from core.request_context import current_request
from core.surfaces import surface_of

# C0 and C1 control characters and the Unicode line separators: a client that gets a CR or LF
# into a log line (a %0a in a path is decoded before it is logged) could forge the next line.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def one_line(text: str) -> str:
    return _CONTROL.sub(_escape, text)


# What a record says about the request it was logged in (RequestContextFilter): its id, and its
# trace and server span when the request is traced.
CONTEXT_FIELDS = ("request_id", "trace_id", "span_id")


class RequestContextFilter(logging.Filter):
    """On the handler: gives each record the request being served; never drops one."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = current_request.get()
        for field in CONTEXT_FIELDS:
            setattr(record, field, getattr(request, field) if request else None)
        return True


class OneLineFormatter(logging.Formatter):
    """The message is escaped; a traceback keeps its lines (it is ours, not the client's), and the
    ids appended are ours or checked, with nothing to escape."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = one_line(super().formatMessage(record))
        for field in CONTEXT_FIELDS:
            value = getattr(record, field, None)
            if value is not None and f"{field}={value}" not in line:
                line += f" {field}={value}"
        return line


class JsonFormatter(logging.Formatter):
    """LOG_FORMAT=json: one JSON object per record, for log shippers; JSON escapes every control
    character, so a record stays one line."""

    def format(self, record: logging.LogRecord) -> str:
        document = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in CONTEXT_FIELDS:
            if (value := getattr(record, field, None)) is not None:
                document[field] = value
        if (http := getattr(record, "http", None)) is not None:
            document["http"] = http
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        return json.dumps(document, ensure_ascii=False, default=str)


class FaultsLoggedBySurface(logging.Filter):
    """For the `django.request` logger: a surface that logs its own faults (SOAP answers every
    fault with a 500 by protocol, and logs those that are server errors) is left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        return request is None or not surface_of(request.path_info).logs_own_faults
