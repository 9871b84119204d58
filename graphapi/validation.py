"""Limits on the documents the endpoint accepts, added to graphql-core's standard rules.

Each refusal is a GraphQL error whose message names the limit. The limits are read from the
settings on every request (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_INTROSPECTION).
The token limit is not a rule: it is enforced by the parser, before any rule runs.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
    specified_rules,
)
from graphql.validation import NoSchemaIntrospectionCustomRule
from graphql.validation.validate import ValidationAbortedError

# graphql-core gives up on documents whose validation would cost it too much work (repeated
# fields to compare, fragments nested hundreds deep) with a bare "Validation aborted.".
VALIDATION_WORK_REFUSAL = (
    "The document exceeds the validation work limit: too many fields or fragments to compare."
)

# Introspection (the explorer's schema query nests ofType about ten levels) is bounded by the
# token limit and the time budget instead, and is turned off as a whole by a setting.
_INTROSPECTION_ROOTS = frozenset({"__schema", "__type"})


class _FragmentWalker(ValidationRule):
    """Measures selection sets through fragments, each fragment once, cycles skipped (a standard
    rule reports those); unknown fragments count as empty (a standard rule reports them too)."""

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self._memo: dict[str, int] = {}
        self._visiting: set[str] = set()

    def measure_fragment(self, name: str) -> int:
        if name in self._memo:
            return self._memo[name]
        fragment = self.context.get_fragment(name)
        if fragment is None or name in self._visiting:
            return 0
        self._visiting.add(name)
        value = self.measure(fragment.selection_set)
        self._visiting.discard(name)
        self._memo[name] = value
        return value

    def measure(self, selection_set: SelectionSetNode | None) -> int:
        raise NotImplementedError


class MaxDepthRule(_FragmentWalker):
    """Depth is the number of fields on the longest path: `{ person { name } }` is 2."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        limit = settings.GRAPHQL_MAX_DEPTH
        depth = self.measure(node.selection_set)
        if depth > limit:
            self.report_error(
                GraphQLError(
                    f"The query is nested {depth} levels deep; the depth limit is {limit}.",
                    node,
                )
            )

    def measure(self, selection_set: SelectionSetNode | None) -> int:
        if selection_set is None:
            return 0
        deepest = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                name = selection.name.value
                if name in _INTROSPECTION_ROOTS or name == "__typename":
                    continue
                depth = 1 + self.measure(selection.selection_set)
            elif isinstance(selection, InlineFragmentNode):
                depth = self.measure(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                depth = self.measure_fragment(selection.name.value)
            else:
                continue
            deepest = max(deepest, depth)
        return deepest


class MaxAliasesRule(_FragmentWalker):
    """Counts aliases as the operation would run them: a fragment spread twice counts twice."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        limit = settings.GRAPHQL_MAX_ALIASES
        count = self.measure(node.selection_set)
        if count > limit:
            self.report_error(
                GraphQLError(f"The query uses {count} aliases; the aliases limit is {limit}.", node)
            )

    def measure(self, selection_set: SelectionSetNode | None) -> int:
        if selection_set is None:
            return 0
        count = 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                count += (selection.alias is not None) + self.measure(selection.selection_set)
            elif isinstance(selection, InlineFragmentNode):
                count += self.measure(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                count += self.measure_fragment(selection.name.value)
        return count


def validation_rules() -> list[type[ValidationRule]]:
    """graphql-core's standard rules plus ours (a custom list replaces the standard one)."""
    rules = [*specified_rules, MaxDepthRule, MaxAliasesRule]
    if not settings.GRAPHQL_INTROSPECTION:
        # Refuses __schema and __type only; __typename stays available.
        rules.append(NoSchemaIntrospectionCustomRule)
    return rules


def name_the_limits(errors: list[GraphQLError]) -> list[GraphQLError]:
    """graphql-core's own work limit refuses without naming itself; every refusal names one."""
    return [
        GraphQLError(VALIDATION_WORK_REFUSAL)
        if isinstance(error, ValidationAbortedError)
        else error
        for error in errors
    ]
