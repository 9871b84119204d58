"""The OpenTelemetry side of core.tracing, imported only when tracing is on (and by its tests):
by config.wsgi, so that under gunicorn every module, the exporter's too, is loaded once in the
master and a worker's post_fork only makes objects and a thread."""

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
# The server span starts inside the middleware that answers a request Django cannot read (an
# unknown Host: the instrumentation asks for the request's absolute URL, which would raise),
# so it starts after the request id is known, and the id is on it as on every other span.
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
    """The SDK's own resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), with this service's
    name where the environment gives none."""
    detected = Resource.create()
    if str(detected.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        detected = detected.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    return detected


def tracer_provider(*processors: SpanProcessor) -> TracerProvider:
    """A provider as the environment configures it (sampler and limits are the SDK's
    OTEL_TRACES_SAMPLER, OTEL_SPAN_*_LIMIT...), stamping request ids, then `processors`."""
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
    """This process's provider, batching spans to each exporter (OTEL_BSP_* tune the batches);
    the instrumentation finds it through the global provider."""
    provider = tracer_provider(*(BatchSpanProcessor(_exporter(name)) for name in names))
    trace.set_tracer_provider(provider)
    return provider


def instrument(tracer_provider: TracerProvider | None = None) -> None:
    """Django's server spans, psycopg's SQL spans and redis's command spans, from the given
    provider or (None) the global one, found when each span starts."""
    position = settings.MIDDLEWARE.index(MIDDLEWARE_AFTER) + 1
    DjangoInstrumentor().instrument(tracer_provider=tracer_provider, middleware_position=position)
    PsycopgInstrumentor().instrument(tracer_provider=tracer_provider)
    RedisInstrumentor().instrument(tracer_provider=tracer_provider)


def uninstrument() -> None:
    DjangoInstrumentor().uninstrument()
    PsycopgInstrumentor().uninstrument()
    RedisInstrumentor().uninstrument()
