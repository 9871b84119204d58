"""Load the relations a GraphQL selection will walk: one SQL query per relation and level, and
every object once.

Synchronous graphene cannot batch with a DataLoader, so each root resolver reads the whole
selection below it (fields, inline fragments and named fragments alike) and loads it level by
level before any field resolves. Objects go through an identity map kept on the request: a
person reached by three paths is one object, and a relation already loaded for it is not
loaded again. So the SQL count grows with the depth of the document, never with the number of
objects, and the rows read are bounded by the size of the tables however the selection fans
out (`allFilms { characters { films { characters ... } } }` reads each link once; building
the response is then bounded by the time budget).

Convention: a GraphQL field whose snake_case name is a relation of the model (forward or
reverse) is resolved from that relation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import F
from graphene.utils.str_converters import to_snake_case
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLResolveInfo,
    InlineFragmentNode,
    SelectionSetNode,
)

ModelT = TypeVar("ModelT", bound=models.Model)
# Relation name -> the plan below it.
Plan = dict[str, "Plan"]

_LOADER_ATTRIBUTE = "graphapi_loader"
_PARENT = "graphapi_parent"


class RelationLoader:
    """An identity map of model objects and of their loaded relations, for one request."""

    def __init__(self) -> None:
        self._objects: dict[tuple[type[models.Model], Any], models.Model] = {}
        self._related: dict[tuple[type[models.Model], str], dict[Any, list[models.Model]]] = {}

    def canonical(self, obj: ModelT) -> ModelT:
        return self._objects.setdefault((type(obj), obj.pk), obj)  # type: ignore[return-value]

    def load_plan(self, model: type[models.Model], parents: list[models.Model], plan: Plan) -> None:
        for name, below in plan.items():
            children = self.load(model, name, parents)
            if below and children:
                self.load_plan(model._meta.get_field(name).related_model, children, below)

    def load(
        self, model: type[models.Model], name: str, parents: Iterable[models.Model]
    ) -> list[models.Model]:
        """The distinct objects related to `parents` through `name`, loading what is missing
        in one query."""
        parents = list(parents)
        loaded = self._related.setdefault((model, name), {})
        missing = {parent.pk for parent in parents} - loaded.keys()
        if missing:
            target, back = _target_and_back(model._meta.get_field(name))
            rows = (
                target._default_manager.annotate(**{_PARENT: F(back)})
                .filter(**{f"{_PARENT}__in": missing})
                .order_by("pk")
            )
            for pk in missing:
                loaded[pk] = []
            for row in rows:
                loaded[getattr(row, _PARENT)].append(self.canonical(row))
        distinct: dict[int, models.Model] = {}
        for parent in parents:
            for child in loaded[parent.pk]:
                distinct[id(child)] = child
        return list(distinct.values())

    def related(self, obj: models.Model, name: str) -> list[models.Model]:
        """What `obj.<name>` holds, in id order; loaded now if no plan foresaw it."""
        loaded = self._related.get((type(obj), name))
        if loaded is None or obj.pk not in loaded:
            self.load(type(obj), name, [obj])
            loaded = self._related[(type(obj), name)]
        return loaded[obj.pk]


def loader_for(info: GraphQLResolveInfo) -> RelationLoader:
    """The request's loader (the execution context value is the Django request)."""
    loader = getattr(info.context, _LOADER_ATTRIBUTE, None)
    if loader is None:
        loader = RelationLoader()
        setattr(info.context, _LOADER_ATTRIBUTE, loader)
    return loader


def related_list(info: GraphQLResolveInfo, obj: models.Model, name: str) -> list[models.Model]:
    return loader_for(info).related(obj, name)


def related_object(info: GraphQLResolveInfo, obj: models.Model, name: str) -> models.Model | None:
    found = loader_for(info).related(obj, name)
    return found[0] if found else None


def with_selection(
    info: GraphQLResolveInfo, model: type[models.Model], objects: list[ModelT]
) -> list[ModelT]:
    """Root objects, with every relation that the selection below the field loaded."""
    loader = loader_for(info)
    objects = [loader.canonical(obj) for obj in objects]
    loader.load_plan(model, objects, selection_plan(info, model))
    return objects


def selection_plan(info: GraphQLResolveInfo, model: type[models.Model]) -> Plan:
    plan: Plan = {}
    for field_node in info.field_nodes:
        _merge(field_node.selection_set, model, info.fragments, plan)
    return plan


def _merge(
    selection_set: SelectionSetNode | None,
    model: type[models.Model],
    fragments: dict[str, FragmentDefinitionNode],
    plan: Plan,
) -> None:
    for field_node in _fields(selection_set, fragments):
        relation = _relation(model, to_snake_case(field_node.name.value))
        if relation is not None:
            below = plan.setdefault(relation.name, {})
            _merge(field_node.selection_set, relation.related_model, fragments, below)


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
    if name.startswith("_"):
        return None
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if field.is_relation and field.related_model is not None else None


def _target_and_back(
    relation: models.Field | models.ForeignObjectRel,
) -> tuple[type[models.Model], str]:
    """The related model, and the lookup from it back to the model that holds `relation`."""
    if isinstance(relation, models.ForeignObjectRel):  # a reverse relation (residents, films)
        return relation.related_model, relation.field.name
    return relation.related_model, relation.related_query_name()
