"""The SOAP surface's own metric, beside the platform's (core.metrics)."""

from __future__ import annotations

from prometheus_client import Counter

SOAP_FAULTS = Counter(
    "blog_soap_faults",
    "SOAP faults answered, by fault code (Sender, Receiver, VersionMismatch, MustUnderstand)"
    " and SOAP version.",
    ("code", "version"),
)


def soap_fault(code: str, version: str) -> None:
    SOAP_FAULTS.labels(code, version).inc()
