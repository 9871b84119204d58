"""Execution with a time budget per request (GRAPHQL_TIME_BUDGET_MS).

Resolution is synchronous, so the budget is checked before each field is resolved: once it is
spent, execution stops and the response is `data: null` with one error naming the time budget.
A single SQL query already running is not interrupted; the token and depth limits keep each
one small.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from graphql import ExecutionContext, ExecutionResult, FieldNode, GraphQLError, GraphQLObjectType
from graphql.pyutils import Path

# The view stamps the request (the execution context value) when it arrives, so that parsing
# and validation count against the budget too.
STARTED_ATTRIBUTE = "graphql_started_at"


class TimeBudgetExceeded(GraphQLError):
    pass


class BudgetedExecutionContext(ExecutionContext):
    _deadline: float | None = None
    _exceeded: TimeBudgetExceeded | None = None

    def execute_field(
        self,
        parent_type: GraphQLObjectType,
        source: Any,
        field_nodes: list[FieldNode],
        path: Path,
    ) -> Any:
        if self._exceeded is None and time.monotonic() >= self._budget_deadline():
            self._exceeded = TimeBudgetExceeded(
                f"The query ran out of its time budget of {settings.GRAPHQL_TIME_BUDGET_MS} ms.",
                field_nodes,
                path=path.as_list(),
            )
        if self._exceeded is not None:
            # Raised again at every later field, so that execution unwinds without resolving
            # anything more; build_response keeps the one error.
            raise self._exceeded
        return super().execute_field(parent_type, source, field_nodes, path)

    def build_response(self, data: Any, errors: list[GraphQLError]) -> ExecutionResult:
        if self._exceeded is not None:
            return ExecutionResult(data=None, errors=[self._exceeded])
        return super().build_response(data, errors)

    def _budget_deadline(self) -> float:
        if self._deadline is None:
            started = getattr(self.context_value, STARTED_ATTRIBUTE, None) or time.monotonic()
            self._deadline = started + settings.GRAPHQL_TIME_BUDGET_MS / 1000
        return self._deadline
