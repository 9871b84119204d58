"""Limits on the documents the endpoint accepts, added to graphql-core's standard rules
(docs/graphql.md). The rules read the settings on every request, so VALIDATION_RULES is fixed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TokenKind,
    ValidationContext,
    ValidationRule,
    Visitor,
    specified_rules,
    visit,
)
from graphql.language import FragmentDefinitionNode
from graphql.validation import NoSchemaIntrospectionCustomRule
from graphql.validation.validate import ValidationAbortedError

# graphql-core gives up on documents whose validation would cost it too much work (fields of one
# name with different arguments or selections to compare pairwise: 250,000 comparisons; fragments
# nested hundreds deep) with a bare "Validation aborted.". Documented in docs/graphql.md.
VALIDATION_WORK_REFUSAL = (
    "The document exceeds the validation work limit (250,000 comparisons of fields that share a"
    " response name): too many fields of one name with different arguments or selections."
)


class _RepeatedLeafFields(Visitor):
    """Drops exact repeats of a plain leaf field (`{ hello hello }`: same response name, no
    arguments, directives or selections) from each selection set. They merge into one answer
    anyway; left in, graphql-core compares every pair of them, so 4,900 repeats of one field
    (inside the token limit) would cost 12 million comparisons."""

    def leave_selection_set(self, node: SelectionSetNode, *_args: Any) -> SelectionSetNode | None:
        seen: set[tuple[str | None, str]] = set()
        kept = []
        for selection in node.selections:
            if (
                isinstance(selection, FieldNode)
                and not selection.arguments
                and not selection.directives
                and selection.selection_set is None
            ):
                key = (selection.alias.value if selection.alias else None, selection.name.value)
                if key in seen:
                    continue
                seen.add(key)
            kept.append(selection)
        if len(kept) == len(node.selections):
            return None  # unchanged
        return SelectionSetNode(selections=tuple(kept), loc=node.loc)


def without_repeated_leaf_fields(document: DocumentNode) -> DocumentNode:
    return visit(document, _RepeatedLeafFields())


# Introspection (the explorer's schema query nests ofType about ten levels) is bounded by the
# token limit and the time budget instead, and is turned off as a whole by a setting.
_INTROSPECTION_ROOTS = frozenset({"__schema", "__type"})


class _FragmentWalker(ValidationRule):
    """Measures each operation and refuses it over the `setting`, its measure being its `own`
    (nothing by default) plus its selection set's: the fields' measures, summed (`combine`).
    Fragments are measured once each, cycles skipped (a standard rule reports those); unknown
    fragments count as empty (a standard rule reports them too)."""

    setting: str
    refusal: str  # a str.format template of `value` and `limit`

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self._memo: dict[str, int] = {}
        self._visiting: set[str] = set()

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        limit = getattr(settings, self.setting)
        value = self.own(node) + self.measure(node.selection_set)
        if value > limit:
            self.report_error(GraphQLError(self.refusal.format(value=value, limit=limit), node))

    def measure(self, selection_set: SelectionSetNode | None) -> int:
        values = []
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                values.append(self.field(selection))
            elif isinstance(selection, InlineFragmentNode):
                values.append(self.measure(selection.selection_set))
            elif isinstance(selection, FragmentSpreadNode):
                values.append(self.measure_fragment(selection.name.value))
        return self.combine(values)

    def measure_fragment(self, name: str) -> int:
        if name in self._memo:
            return self._memo[name]
        fragment = self.context.get_fragment(name)
        if fragment is None or name in self._visiting:
            return 0
        self._visiting.add(name)
        value = self.own(fragment) + self.measure(fragment.selection_set)
        self._visiting.discard(name)
        self._memo[name] = value
        return value

    def own(self, node: OperationDefinitionNode | FragmentDefinitionNode) -> int:
        return 0

    def combine(self, values: list[int]) -> int:
        return sum(values)

    def field(self, node: FieldNode) -> int:
        return self.measure(node.selection_set)


class MaxDepthRule(_FragmentWalker):
    """Depth is the number of fields on the longest path: `{ person { name } }` is 2."""

    setting = "GRAPHQL_MAX_DEPTH"
    refusal = "The query is nested {value} levels deep; the depth limit is {limit}."

    def combine(self, values: list[int]) -> int:
        return max(values, default=0)

    def field(self, node: FieldNode) -> int:
        name = node.name.value
        if name in _INTROSPECTION_ROOTS or name == "__typename":
            return 0
        return 1 + self.measure(node.selection_set)


class MaxAliasesRule(_FragmentWalker):
    """Counts aliases as the operation would run them: a fragment spread twice counts twice."""

    setting = "GRAPHQL_MAX_ALIASES"
    refusal = "The query uses {value} aliases; the aliases limit is {limit}."

    def field(self, node: FieldNode) -> int:
        return (node.alias is not None) + self.measure(node.selection_set)


class MaxTokensRule(_FragmentWalker):
    """Counts an operation's tokens with its fragments expanded: each spread adds the tokens of
    its fragment's whole definition, again for every spread, recursively. The parser's limit
    alone would let a short document expand to a huge one (fragments spreading fragments).
    A selection set's measure is the tokens its spreads add (the rest is in its own text)."""

    setting = "GRAPHQL_MAX_TOKENS"
    refusal = (
        "The query has {value} tokens once its fragments are expanded; the tokens limit is {limit}."
    )

    def own(self, node: OperationDefinitionNode | FragmentDefinitionNode) -> int:
        """The lexical tokens of the node's text, as the parser counts them (comments excluded)."""
        if node.loc is None:
            return 0
        count = 0
        token = node.loc.start_token
        while token is not None:
            if token.kind is not TokenKind.COMMENT:
                count += 1
            if token is node.loc.end_token:
                break
            token = token.next
        return count


class IntrospectionSwitch(NoSchemaIntrospectionCustomRule):
    """graphql-core's rule (refuses __schema and __type; __typename stays available) while
    GRAPHQL_INTROSPECTION is off."""

    def enter_field(self, node: FieldNode, *args: Any) -> None:
        if not settings.GRAPHQL_INTROSPECTION:
            super().enter_field(node, *args)


# graphql-core's standard rules plus ours (a custom list replaces the standard one).
VALIDATION_RULES = (
    *specified_rules,
    MaxDepthRule,
    MaxAliasesRule,
    MaxTokensRule,
    IntrospectionSwitch,
)


def name_the_limits(errors: list[GraphQLError]) -> list[GraphQLError]:
    """graphql-core's own work limit refuses without naming itself; every refusal names one."""
    return [
        GraphQLError(VALIDATION_WORK_REFUSAL)
        if isinstance(error, ValidationAbortedError)
        else error
        for error in errors
    ]
