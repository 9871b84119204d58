"""Plan prefetch_related lookups from a GraphQL selection set, so that no resolver runs N+1.

Synchronous graphene cannot batch with a DataLoader, so the root resolver reads the whole
selection below it (fields, inline fragments and named fragments alike) and asks Django for
every relation in one query per relation path. The SQL count then grows with the depth of the
document, not with the number of objects returned.

Convention: a GraphQL field whose snake_case name is a relation of the model (forward or
reverse) is resolved from that relation, so the lookup path is the chain of those names.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from graphene.utils.str_converters import to_snake_case
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLResolveInfo,
    InlineFragmentNode,
    SelectionSetNode,
)


def prefetch_lookups(info: GraphQLResolveInfo, model: type[models.Model]) -> list[str]:
    """The prefetch_related paths that the selection below the current field needs."""
    lookups: set[str] = set()
    for field_node in info.field_nodes:
        _collect(field_node.selection_set, model, "", info.fragments, lookups)
    # Sorted so that a parent path is always prefetched before its children.
    return sorted(lookups)


def _collect(
    selection_set: SelectionSetNode | None,
    model: type[models.Model],
    prefix: str,
    fragments: dict[str, FragmentDefinitionNode],
    lookups: set[str],
) -> None:
    for field_node in _fields(selection_set, fragments):
        relation = _relation(model, to_snake_case(field_node.name.value))
        if relation is None:
            continue
        path = f"{prefix}{relation.name}"
        lookups.add(path)
        _collect(field_node.selection_set, relation.related_model, f"{path}__", fragments, lookups)


def _fields(
    selection_set: SelectionSetNode | None, fragments: dict[str, FragmentDefinitionNode]
) -> Iterator[FieldNode]:
    if selection_set is None:
        return
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            yield selection
        elif isinstance(selection, InlineFragmentNode):
            yield from _fields(selection.selection_set, fragments)
        elif isinstance(selection, FragmentSpreadNode):
            # Validation has already refused unknown and cyclic fragments.
            fragment = fragments.get(selection.name.value)
            if fragment is not None:
                yield from _fields(fragment.selection_set, fragments)


def _relation(
    model: type[models.Model], name: str
) -> models.Field | models.ForeignObjectRel | None:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if field.is_relation and field.related_model is not None else None
