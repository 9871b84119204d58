"""The GraphQL surface's own metric, beside the platform's (core.metrics)."""

from __future__ import annotations

from prometheus_client import Counter

GRAPHQL_ERRORS = Counter(
    "blog_graphql_errors",
    "Errors in GraphQL responses, by kind: request, parse, validation, operation, variables,"
    " execution, internal.",
    ("kind",),
)


def graphql_errors(kind: str) -> None:
    GRAPHQL_ERRORS.labels(kind).inc()
