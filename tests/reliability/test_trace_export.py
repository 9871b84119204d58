"""Traces from real gunicorn workers: with OTEL_TRACES_EXPORTER=otlp each worker exports its
spans over OTLP/HTTP (protobuf) to the endpoint, here a small receiver on 127.0.0.1 that the test
runs, and the request's log line names the same trace."""

from __future__ import annotations

import gzip
import http.server
import re
import signal
import threading
import time
from collections.abc import Callable

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.rest.conftest import API

pytestmark = [pytest.mark.postgres, pytest.mark.servers]


class OtlpReceiver:
    """An OTLP/HTTP endpoint that keeps every span it is sent, with its resource's attributes."""

    def __init__(self) -> None:
        self.spans: list[tuple[dict, Span]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path == "/v1/traces":
                    receiver.keep(ExportTraceServiceRequest.FromString(body))
                    answer, status = ExportTraceServiceResponse().SerializeToString(), 200
                else:
                    answer, status = b"", 404
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def keep(self, export: ExportTraceServiceRequest) -> None:
        with self.lock:
            for resource_spans in export.resource_spans:
                resource = attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    self.spans.extend((resource, span) for span in scope_spans.spans)

    def received(self) -> list[tuple[dict, Span]]:
        with self.lock:
            return list(self.spans)

    def wait_for(
        self, done: Callable[[list[tuple[dict, Span]]], bool], timeout: float = 20
    ) -> list[tuple[dict, Span]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            received = self.received()
            if done(received):
                return received
            time.sleep(0.1)
        raise AssertionError(f"spans did not arrive in {timeout} s: {received}")

    def __enter__(self) -> OtlpReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def attributes(key_values) -> dict:
    return {kv.key: getattr(kv.value, kv.value.WhichOneof("value")) for kv in key_values}


def of_request(received: list[tuple[dict, Span]], request_id: str) -> list[tuple[dict, Span]]:
    return [
        (r, s) for r, s in received if attributes(s.attributes).get("http.request_id") == request_id
    ]


def whole(spans: list[tuple[dict, Span]]) -> bool:
    systems = {attributes(s.attributes).get("db.system") for _, s in spans}
    servers = [s for _, s in spans if s.kind == Span.SPAN_KIND_SERVER]
    return bool(servers) and {"postgresql", "redis"} <= systems


def start_traced(start_server, receiver: OtlpReceiver, **env: str):
    return start_server(
        LOG_LEVEL="INFO",
        OTEL_TRACES_EXPORTER="otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
        **env,
    )


def post_article(server, blog, token: str, request_id: str) -> None:
    response = server.request(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        body={"title": "Exported"},
        headers={"X-Access-Token": token, "X-Request-ID": request_id},
    )
    assert response.status == 201


@pytest.mark.parametrize("preload", ["true", "false"], ids=["preloaded", "loaded-by-workers"])
def test_gunicorn_workers_export_each_request_as_one_trace_over_otlp_http(
    start_server, blog, alice, token_for, preload
):
    token = token_for(alice)
    with OtlpReceiver() as receiver:
        server = start_traced(
            start_server, receiver, GUNICORN_PRELOAD=preload, OTEL_BSP_SCHEDULE_DELAY="100"
        )
        post_article(server, blog, token, "exported-1")
        spans = of_request(
            receiver.wait_for(lambda r: whole(of_request(r, "exported-1"))), "exported-1"
        )
        server.stop()  # while the receiver still answers the workers' last export

    [server_span] = [s for _, s in spans if s.kind == Span.SPAN_KIND_SERVER]
    assert server_span.name == "POST api/v1.2/blogs/<int:blog_id>/articles"
    assert {s.trace_id for _, s in spans} == {server_span.trace_id}
    assert {r["service.name"] for r, _ in spans} == {"blog-service"}
    statements = [attributes(s.attributes).get("db.statement", "") for _, s in spans]
    assert any(statement.startswith('INSERT INTO "articles_article"') for statement in statements)

    [line] = [line for line in server.log().splitlines() if "request_id=exported-1" in line]
    assert re.search(
        rf"trace_id={server_span.trace_id.hex()} span_id={server_span.span_id.hex()}$", line
    )


def test_a_worker_sends_the_spans_it_still_holds_when_it_stops(
    start_server, blog, alice, token_for
):
    token = token_for(alice)
    with OtlpReceiver() as receiver:
        # Batches every minute: only the worker's exit can send the request's spans in time.
        server = start_traced(start_server, receiver, OTEL_BSP_SCHEDULE_DELAY="60000")
        post_article(server, blog, token, "held-1")
        time.sleep(1)
        assert of_request(receiver.received(), "held-1") == []
        # A graceful stop, as systemd's or a restart's: the workers finish and exit.
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)
        spans = of_request(receiver.wait_for(lambda r: whole(of_request(r, "held-1")), 5), "held-1")
    assert {s.trace_id for _, s in spans} == {spans[0][1].trace_id}
    assert "was sent SIGKILL" not in server.log()
