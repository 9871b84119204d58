"""The OpenTelemetry side of core.tracing, imported only when tracing is on (and by its tests),
in gunicorn's master, so that a worker's post_fork only makes objects and a thread."""

from __future__ import annotations

from django.conf import settings
from opentelemetry import context, trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.django import DjangoInstrumentor
from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

from core.request_context import current_request

# On every span of a request: its X-Request-ID, as the JSON log's "http.request_id".
REQUEST_ID_ATTRIBUTE = "http.request_id"
# When neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names the service.
DEFAULT_SERVICE_NAME = "blog-service"
# The server span starts after the Host is checked (docs/decisions/traces.md).
MIDDLEWARE_AFTER = "core.middleware.BadRequestMiddleware"


class RequestSpans(SpanProcessor):
    """Stamps every span started while a request is served with the request's id, and notes the
    request's first span (its server span) so that the request's log lines can name it."""

    def on_start(self, span: Span, parent_context: context.Context | None = None) -> None:
        request = current_request.get()
        if request is None:
            return
        span.set_attribute(REQUEST_ID_ATTRIBUTE, request.request_id)
        if request.trace_id is None:
            span_context = span.get_span_context()
            request.trace_id = trace.format_trace_id(span_context.trace_id)
            request.span_id = trace.format_span_id(span_context.span_id)


def resource() -> Resource:
    detected = Resource.create()
    if str(detected.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        detected = detected.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    return detected


def tracer_provider(*processors: SpanProcessor) -> TracerProvider:
    provider = TracerProvider(resource=resource())
    provider.add_span_processor(RequestSpans())
    for processor in processors:
        provider.add_span_processor(processor)
    return provider


def _exporter(name: str) -> SpanExporter:
    if name == "console":
        return ConsoleSpanExporter()
    return OTLPSpanExporter()  # endpoint, headers, timeout: OTEL_EXPORTER_OTLP_* (the SDK's)


def start_exporting(names: list[str]) -> TracerProvider:
    provider = tracer_provider(*(BatchSpanProcessor(_exporter(name)) for name in names))
    trace.set_tracer_provider(provider)
    return provider


def instrument(tracer_provider: TracerProvider | None = None) -> None:
    """From the given provider or (None) the global one, found when each span starts."""
    position = settings.MIDDLEWARE.index(MIDDLEWARE_AFTER) + 1
    DjangoInstrumentor().instrument(tracer_provider=tracer_provider, middleware_position=position)
    PsycopgInstrumentor().instrument(tracer_provider=tracer_provider)
    RedisInstrumentor().instrument(tracer_provider=tracer_provider)


def uninstrument() -> None:
    DjangoInstrumentor().uninstrument()
    PsycopgInstrumentor().uninstrument()
    RedisInstrumentor().uninstrument()
