"""The lean WSGI route of POST /soap/calculator (config/lean.py) answers exactly as Django's
handler does, and keeps the site-wide behaviours: X-Request-ID, the log line, security headers.

Requests go to the WSGI application gunicorn serves (config.wsgi.application), as WSGI environs.
"""

from __future__ import annotations

import io
import logging
import re
import sys

import pytest

from config.wsgi import application, django_application
from tests.soap.messages import (
    SOAP11_TYPE,
    SOAP12_TYPE,
    action,
    add_values,
    envelope,
    envelope11,
)

ENDPOINT = "/soap/calculator"
VOLATILE = {"x-request-id", "date"}


def call(app, method: str, body: bytes = b"", *, path: str = ENDPOINT, **headers: str):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SCRIPT_NAME": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in headers.items():
        key = name.upper()
        environ[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
    started: list = []
    response = application if app is None else app
    chunks = response(environ, lambda status, head, exc_info=None: started.append((status, head)))
    try:
        content = b"".join(chunks)
    finally:
        # PEP 3333: the server calls close() when the iterable has one.
        if hasattr(chunks, "close"):
            chunks.close()
    status, head = started[0]
    return status, [(k.lower(), v) for k, v in head], content


def comparable(answer):
    status, head, content = answer
    return status, sorted((k, v) for k, v in head if k not in VOLATILE), content


def both(method: str, body: bytes = b"", **headers: str):
    lean = call(application, method, body, **headers)
    django = call(django_application, method, body, **headers)
    return lean, django


REQUESTS = {
    "SOAP 1.2 sum": (add_values(2, 3), SOAP12_TYPE, envelope),
    "SOAP 1.2 with action": (add_values(2, 3), f'{SOAP12_TYPE}; action="{{action}}"', envelope),
    "SOAP 1.1 sum": (add_values(40, 2), SOAP11_TYPE, envelope11),
    "overflow fault": (add_values(2147483647, 1), SOAP12_TYPE, envelope),
    "not a number": (add_values("x", 1), SOAP12_TYPE, envelope),
    "wrong charset": (add_values(2, 3), "application/soap+xml; charset=latin-1", envelope),
    "unknown charset": (add_values(2, 3), "application/soap+xml; charset=klingon", envelope),
    "no charset": (add_values(2, 3), "application/soap+xml", envelope),
    "not SOAP": (add_values(2, 3), "application/json", envelope),
    "no content type": (add_values(2, 3), "", envelope),
}


@pytest.mark.parametrize("name", REQUESTS)
def test_the_lean_route_answers_as_the_django_handler(db, name):
    body, content_type, wrap = REQUESTS[name]
    content_type = content_type.replace("{action}", action())

    lean, django = both("POST", wrap(body).encode(), content_type=content_type)

    assert comparable(lean) == comparable(django)


def test_malformed_and_oversized_bodies_answer_as_the_django_handler(db, settings):
    settings.SOAP_MAX_BODY_BYTES = 200
    for body in (b"<not-xml", b"<a>" * 30, envelope(add_values(2, 3)).encode() + b" " * 300):
        lean, django = both("POST", body, content_type=SOAP12_TYPE)
        assert comparable(lean) == comparable(django)
        assert lean[0].split()[0] in {"400", "413", "500"}


def test_a_host_not_allowed_is_refused_as_the_django_handler_does(db):
    lean, django = both("POST", envelope(add_values(2, 3)).encode(), host="evil.example")

    assert lean[0].startswith("400")
    assert comparable(lean) == comparable(django)


def test_the_lean_route_keeps_request_ids_security_headers_and_the_log_line(db, caplog):
    with caplog.at_level(logging.INFO, logger="config.requests"):
        status, head, content = call(
            application,
            "POST",
            envelope(add_values(2, 3)).encode(),
            content_type=SOAP12_TYPE,
            x_request_id="lean-1",
        )
        fresh = dict(call(application, "POST", b"<x/>", content_type=SOAP12_TYPE)[1])

    headers = dict(head)
    assert status == "200 OK"
    assert b">5</" in content
    assert headers["x-request-id"] == "lean-1"
    assert re.fullmatch(r"[0-9a-f]{32}", fresh["x-request-id"])
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["content-length"] == str(len(content))
    lines = [r.getMessage() for r in caplog.records if r.name == "config.requests"]
    assert re.fullmatch(r"POST /soap/calculator 200 [0-9.]+ms request_id=lean-1", lines[0])
    assert lines[1].startswith("POST /soap/calculator 400 ")


def test_other_methods_and_paths_go_to_the_django_handler(db):
    assert call(application, "GET", path="/soap/calculator")[0] == "200 OK"  # the help page
    assert call(application, "PUT", b"x", content_type=SOAP12_TYPE)[0].startswith("405")
    assert call(application, "TRACE")[0].startswith("501")
    assert call(application, "POST", b"x", path="/soap/calculator/")[0].startswith("404")
