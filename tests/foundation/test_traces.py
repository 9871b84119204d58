"""Traces (OpenTelemetry): off unless OTEL_* ask for them; on, a request is one trace whose spans
(the server span, its SQL and its Redis commands) all carry the request id, and the request's
log lines name the trace. The spans are caught by the SDK's in-memory exporter; the OTLP export
from gunicorn's workers is tests/reliability/test_trace_export.py."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections
from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from core import tracing
from core.logs import JsonFormatter
from core.tracing import sdk
from tests.rest.conftest import API

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def no_otel_variables(monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)


@pytest.fixture
def spans(no_otel_variables, db) -> Iterator[InMemorySpanExporter]:
    """The service instrumented as config.wsgi does it, into an in-memory exporter. After `db`:
    the test's connection is open before psycopg is wrapped, so the tests after this one do not
    inherit a traced connection."""
    exporter = InMemorySpanExporter()
    sdk.instrument(tracer_provider=sdk.tracer_provider(SimpleSpanProcessor(exporter)))
    yield exporter
    sdk.uninstrument()


@contextmanager
def console_log(formatter: logging.Formatter | None = None) -> Iterator[io.StringIO]:
    """What the settings' console handler writes meanwhile: a copy of it (its filters, its
    formatter or `formatter`) writing to a string."""
    [console] = [h for h in logging.getLogger().handlers if h.name == "console"]
    written = io.StringIO()
    copy = logging.StreamHandler(written)
    for log_filter in console.filters:
        copy.addFilter(log_filter)
    copy.setFormatter(formatter or console.formatter)
    logging.getLogger().addHandler(copy)
    try:
        yield written
    finally:
        logging.getLogger().removeHandler(copy)


def post_article(client, blog, token: str, request_id: str, spans: InMemorySpanExporter):
    spans.clear()  # what the fixtures wrote before is no part of the request
    return client.post(
        f"{API}/blogs/{blog.pk}/articles",
        data=json.dumps({"title": "Traced", "content": "One trace"}),
        content_type="application/json",
        headers={"X-Access-Token": token, "X-Request-ID": request_id},
    )


def test_a_request_is_one_trace_whose_spans_and_log_lines_carry_its_request_id(
    client, spans, blog, alice, token_for
):
    with console_log() as text, console_log(JsonFormatter()) as structured:
        response = post_article(client, blog, token_for(alice), "trace-me-1", spans)
    assert response.status_code == 201

    finished = spans.get_finished_spans()
    [server] = [s for s in finished if s.kind == SpanKind.SERVER]
    assert server.name == "POST api/v1.2/blogs/<int:blog_id>/articles"
    assert server.attributes["http.status_code"] == 201
    assert {s.context.trace_id for s in finished} == {server.context.trace_id}
    assert {s.attributes["http.request_id"] for s in finished} == {"trace-me-1"}

    trace_id = trace.format_trace_id(server.context.trace_id)
    span_id = trace.format_span_id(server.context.span_id)
    # The request's own line is written after its span ended, and still names it.
    [line] = [line for line in text.getvalue().splitlines() if "config.requests" in line]
    assert line.endswith(f"request_id=trace-me-1 trace_id={trace_id} span_id={span_id}")
    [record] = [json.loads(line) for line in structured.getvalue().splitlines()]
    assert (record["request_id"], record["trace_id"], record["span_id"]) == (
        "trace-me-1",
        trace_id,
        span_id,
    )


def test_a_line_a_view_logs_names_the_request_and_its_trace(client, spans, unreachable_database):
    spans.clear()
    with console_log() as text:
        response = client.get(f"{API}/blogs/1", headers={"X-Request-ID": "inside-1"})
    assert response.status_code == 503
    [server] = [s for s in spans.get_finished_spans() if s.kind == SpanKind.SERVER]
    trace_id = trace.format_trace_id(server.context.trace_id)
    [logged] = [line for line in text.getvalue().splitlines() if "database unavailable" in line]
    # The message names the request already; the trace is added.
    assert logged.count("request_id=inside-1") == 1
    assert f"trace_id={trace_id}" in logged


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_rest_write_is_one_trace_with_its_sql_and_redis_spans_all_carrying_the_request_id(
    client, spans, blog, alice, token_for, settings
):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL): SQL spans come from psycopg")
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (REDIS_URL): Redis spans come from the shared cache's client")
    token = token_for(alice)
    # The next query connects again, through the instrumented driver (committed data: the
    # test is transactional).
    connections.close_all()
    try:
        with console_log(JsonFormatter()) as structured:
            response = post_article(client, blog, token, "write-1", spans)
    finally:
        connections.close_all()  # the next tests get an uninstrumented connection
    assert response.status_code == 201

    finished = spans.get_finished_spans()
    [server] = [s for s in finished if s.kind == SpanKind.SERVER]
    assert {s.context.trace_id for s in finished} == {server.context.trace_id}
    assert {s.attributes["http.request_id"] for s in finished} == {"write-1"}
    by_id = {s.context.span_id: s for s in finished}
    # Every span hangs from the server span.
    for span in finished:
        if span is not server:
            assert span.parent is not None and span.parent.span_id in by_id

    def system(span) -> str | None:
        return span.attributes.get("db.system") or span.attributes.get("db.system.name")

    sql = [s for s in finished if system(s) == "postgresql"]
    redis = [s for s in finished if system(s) == "redis"]
    assert any(s.name.startswith("INSERT") for s in sql), [s.name for s in sql]
    assert redis, [s.name for s in finished]
    assert all(s.kind == SpanKind.CLIENT for s in sql + redis)

    records = [json.loads(line) for line in structured.getvalue().splitlines()]
    [request_line] = [r for r in records if r["logger"] == "config.requests"]
    assert request_line["request_id"] == "write-1"
    assert request_line["trace_id"] == trace.format_trace_id(server.context.trace_id)


def test_a_callers_traceparent_makes_the_request_part_of_the_callers_trace(client, spans):
    caller_trace, caller_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    response = client.get(
        "/livez",
        headers={"traceparent": f"00-{caller_trace}-{caller_span}-01", "X-Request-ID": "child-1"},
    )
    assert response.status_code == 200
    [server] = spans.get_finished_spans()
    assert server.kind == SpanKind.SERVER and server.attributes["http.request_id"] == "child-1"
    assert trace.format_trace_id(server.context.trace_id) == caller_trace
    assert trace.format_span_id(server.parent.span_id) == caller_span


def test_a_request_for_an_unknown_host_is_refused_as_before_and_not_traced(client, spans, db):
    spans.clear()
    response = client.get(f"{API}/", headers={"Host": "evil.example"})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert response["X-Request-ID"]
    assert spans.get_finished_spans() == ()


# --- off by default, and what switches it on ------------------------------------------------


def test_without_otel_variables_tracing_is_off(no_otel_variables):
    assert tracing.exporters() == []
    assert not tracing.enabled()


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"OTEL_TRACES_EXPORTER": "otlp"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "Console, otlp"}, ["console", "otlp"]),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:1"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, []),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:1", "OTEL_SDK_DISABLED": "TRUE"}, []),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "false"}, ["otlp"]),
        ({"OTEL_SERVICE_NAME": "blog", "OTEL_TRACES_SAMPLER": "always_on"}, []),
    ],
)
def test_which_variables_switch_tracing_on(no_otel_variables, monkeypatch, variables, expected):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert tracing.exporters() == expected


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"OTEL_TRACES_EXPORTER": "jaeger"}, "OTEL_TRACES_EXPORTER: jaeger is not available"),
        (
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:1", "OTEL_SDK_DISABLED": "maybe"},
            "OTEL_SDK_DISABLED must be a boolean",
        ),
    ],
)
def test_a_setting_that_cannot_be_honoured_stops_the_start(
    no_otel_variables, monkeypatch, variables, message
):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=message):
        tracing.exporters()


def test_the_service_is_named_unless_the_environment_names_it(no_otel_variables, monkeypatch):
    assert sdk.resource().attributes["service.name"] == "blog-service"
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,team=blogs")
    assert sdk.resource().attributes["service.name"] == "from-attributes"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "blog-eu")
    assert sdk.resource().attributes["service.name"] == "blog-eu"
    assert sdk.resource().attributes["team"] == "blogs"


# The WSGI application as gunicorn and runserver load it, serving one request in a fresh process.
SERVE_ONE_REQUEST = """
import sys, wsgiref.util
import config.wsgi
from django.conf import settings
environ = {}
wsgiref.util.setup_testing_defaults(environ)
environ.update(PATH_INFO="/livez", HTTP_X_REQUEST_ID="fresh-process-1")
statuses = []
b"".join(config.wsgi.application(environ, lambda status, headers: statuses.append(status)))
print("status", statuses[0])
print("opentelemetry loaded", any(name.startswith("opentelemetry") for name in sys.modules))
print("middleware", ",".join(settings.MIDDLEWARE))
from opentelemetry import trace
print("provider", type(trace.get_tracer_provider()).__name__)
"""


def serve_one_request(**variables: str) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.test", PYTHONPATH=str(ROOT), **variables)
    return subprocess.run(
        [sys.executable, "-c", SERVE_ONE_REQUEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_off_by_default_nothing_of_opentelemetry_is_loaded_installed_or_exported():
    result = serve_one_request()
    assert "status 200 OK" in result.stdout
    assert "opentelemetry loaded False" in result.stdout
    assert "opentelemetry" not in result.stdout.split("middleware ")[1].split("\n")[0]
    assert "provider ProxyTracerProvider" in result.stdout  # no SDK provider: no span is made
    assert "trace_id=" not in result.stderr


def test_on_in_a_process_that_does_not_fork_the_span_is_exported_at_exit():
    """runserver's case: config.wsgi instruments and starts exporting itself."""
    result = serve_one_request(OTEL_TRACES_EXPORTER="console", OTEL_SERVICE_NAME="probe")
    assert "status 200 OK" in result.stdout
    assert "opentelemetry.instrumentation.django" in result.stdout
    assert "provider TracerProvider" in result.stdout
    # The console exporter prints the server span, flushed when the process exits.
    assert '"name": "GET livez"' in result.stdout
    assert '"http.request_id": "fresh-process-1"' in result.stdout
    assert '"service.name": "probe"' in result.stdout
    [line] = [line for line in result.stderr.splitlines() if "config.requests" in line]
    assert "request_id=fresh-process-1 trace_id=" in line
