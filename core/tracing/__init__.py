"""Traces (OpenTelemetry), off unless the standard OTEL_* variables ask for it
(docs/production.md, "Traces"; docs/decisions/traces.md). Off, nothing of OpenTelemetry is
imported. `setup()` instruments (before a fork); `start()` makes the exporting thread in the
process that serves, since a thread does not survive a fork. OpenTelemetry is an optional install
(requirements-traces.txt): traces asked for without it stop the start, saying what to install.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from core.env import env_bool, env_list, env_str

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
    """In gunicorn's master: the workers start exporting after they fork."""
    global _started_by_workers
    _started_by_workers = True


def _sdk():
    try:
        from core.tracing import sdk
    except ModuleNotFoundError as missing:
        if not (missing.name or "").startswith("opentelemetry"):
            raise
        raise ImproperlyConfigured(
            f"traces are on ({', '.join(exporters())}) but {missing.name} is not installed:"
            " pip install -r requirements-traces.txt (docs/production.md, Traces)"
        ) from None
    return sdk


def setup() -> None:
    """Before the WSGI application is built."""
    if not enabled():
        return
    _sdk().instrument()
    if not _started_by_workers:
        start()


def start() -> None:
    global _provider
    names = exporters()
    if not names or _provider is not None:
        return
    _provider = _sdk().start_exporting(names)


def shutdown() -> None:
    if _provider is not None:
        _provider.shutdown()
