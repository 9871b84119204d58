"""The time budget of a request (GRAPHQL_TIME_BUDGET_MS), through graphql-core's public API
(docs/graphql.md). The view stamps the request when it arrives, so parsing and validation count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from graphql import ExecutionContext, ExecutionResult, GraphQLError, GraphQLResolveInfo

STARTED_ATTRIBUTE = "graphql_started_at"
_EXCEEDED_ATTRIBUTE = "graphql_budget_exceeded"


class TimeBudget:
    """graphql-core field middleware: the deadline checked before each field."""

    def resolve(
        self, next_: Callable[..., Any], root: Any, info: GraphQLResolveInfo, **args: Any
    ) -> Any:
        request = info.context
        exceeded = getattr(request, _EXCEEDED_ATTRIBUTE, None)
        if exceeded is None:
            budget_ms = settings.GRAPHQL_TIME_BUDGET_MS
            if time.monotonic() < getattr(request, STARTED_ATTRIBUTE) + budget_ms / 1000:
                return next_(root, info, **args)
            exceeded = GraphQLError(
                f"The query ran out of its time budget of {budget_ms} ms.",
                info.field_nodes,
                path=info.path.as_list(),
            )
            setattr(request, _EXCEEDED_ATTRIBUTE, exceeded)
        raise exceeded


class BudgetedExecutionContext(ExecutionContext):
    """One error for a spent budget, not one per field left unresolved."""

    def build_response(self, data: Any, errors: list[GraphQLError]) -> ExecutionResult:
        exceeded = getattr(self.context_value, _EXCEEDED_ATTRIBUTE, None)
        if exceeded is not None:
            return ExecutionResult(data=None, errors=[exceeded])
        return super().build_response(data, errors)
