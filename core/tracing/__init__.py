"""Traces (OpenTelemetry): each request's server span with its SQL (psycopg) and Redis spans,
sent over OTLP/HTTP or printed. Off unless the standard OTEL_* variables ask for it
(docs/production.md, "Traces"; docs/decisions/traces.md):

- OTEL_SDK_DISABLED=true: off, whatever else is set;
- OTEL_TRACES_EXPORTER: a comma-separated list of `otlp` and `console`; `none` is off;
- otherwise, an OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `otlp`.

Everything else (service name and resource, sampler, batching, endpoint, headers, timeouts) the
SDK reads from its own variables. Off, this module imports nothing of OpenTelemetry: no
middleware is added and no driver is wrapped, so a request pays nothing.

Two steps, because a gunicorn master forks its workers: `setup()` (config/wsgi.py, before Django
builds its middleware chain) installs the instrumentation, plain patched code that a fork may
copy; `start()` makes the tracer provider and its exporting thread in the process that serves,
since a thread does not survive a fork: gunicorn's post_fork (config/gunicorn.conf.py), or
`setup()` itself where nothing forks (runserver).
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_list, env_str

EXPORTERS = ("otlp", "console")
# The only OTLP transport installed (opentelemetry-exporter-otlp-proto-http).
OTLP_PROTOCOL = "http/protobuf"

_started_by_workers = False
_provider = None


def exporters() -> list[str]:
    """The exporters the environment asks for; empty when tracing is off. A name or an OTLP
    protocol this service cannot honour stops the start, as any bad setting does."""
    if env_bool("OTEL_SDK_DISABLED", False):
        return []
    names = [name.lower() for name in env_list("OTEL_TRACES_EXPORTER", [])]
    if not names and (
        env_str("OTEL_EXPORTER_OTLP_ENDPOINT") or env_str("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        names = ["otlp"]
    names = [name for name in names if name != "none"]
    unknown = sorted(set(names) - set(EXPORTERS))
    if unknown:
        raise ImproperlyConfigured(
            f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not available here;"
            f" use {', '.join(EXPORTERS)} or none"
        )
    if "otlp" in names:
        for variable in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
            protocol = (env_str(variable) or "").strip()
            if protocol and protocol != OTLP_PROTOCOL:
                raise ImproperlyConfigured(
                    f"{variable} must be {OTLP_PROTOCOL} (the exporter installed), not {protocol!r}"
                )
    return names


def enabled() -> bool:
    return bool(exporters())


def start_in_workers() -> None:
    """Called by gunicorn's configuration, in the master: the workers start exporting after they
    fork (post_fork), so `setup()` only instruments."""
    global _started_by_workers
    _started_by_workers = True


def setup() -> None:
    """Instruments the process when the environment asks for traces, and starts exporting unless
    gunicorn's workers do it after their fork. Before the WSGI application is built."""
    if not enabled():
        return
    from core.tracing import sdk

    sdk.instrument()
    if not _started_by_workers:
        start()


def start() -> None:
    """Makes this process's tracer provider and exporters; once per process."""
    global _provider
    names = exporters()
    if not names or _provider is not None:
        return
    from core.tracing import sdk

    _provider = sdk.start_exporting(names)


def shutdown() -> None:
    """Sends the spans still queued (gunicorn's worker_exit; the SDK also does it at exit)."""
    if _provider is not None:
        _provider.shutdown()
