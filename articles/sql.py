"""Rows of model fields read with SQL written once per process, converted as the ORM converts them.

The two reads that carry most of a blog's traffic (one article with its blog, and a page of
articles) cost about 0.5 to 0.7 ms each when the ORM builds their SQL on every request (the
lookup, the join and the compiler: more than the database takes to answer), and about 0.1 ms as
SQL written once. The SQL is written from the models' own metadata (tables, columns, quoting of
the connected database), and each value goes through the converters the ORM would apply (SQLite
gives back datetimes as text, for instance), so the instances are the ones a QuerySet would give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any, Generic, TypeVar

from django.db import connection, models

ModelT = TypeVar("ModelT", bound=models.Model)

# The largest id a BigAutoField holds: a larger one in a URL names nothing, and must not reach
# the database (PostgreSQL would refuse the parameter).
MAX_ID = 2**63 - 1


def qn(name: str) -> str:
    return connection.ops.quote_name(name)


class FieldRead(Generic[ModelT]):
    """Some concrete fields of `model`: their columns for a SELECT, and instances from rows."""

    def __init__(self, model: type[ModelT], attnames: Iterable[str]) -> None:
        wanted = set(attnames)
        # Model.from_db takes the values in the model's field order.
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if f.attname in wanted]
        self.attnames = [f.attname for f in self.fields]
        if len(self.fields) != len(wanted):
            raise ValueError(f"{model.__name__} has no field among {sorted(wanted)}")

    @property
    def table(self) -> str:
        return qn(self.model._meta.db_table)

    def column(self, attname: str, alias: str | None = None) -> str:
        column = qn(self.model._meta.get_field(attname).column)
        return f"{alias}.{column}" if alias else column

    def columns(self, alias: str | None = None) -> str:
        return ", ".join(self.column(name, alias) for name in self.attnames)

    @cached_property
    def _converters(self) -> list[tuple[int, list[Callable[..., Any]], Any]]:
        found = []
        for index, field in enumerate(self.fields):
            expression = field.get_col(self.model._meta.db_table)
            converters = connection.ops.get_db_converters(
                expression
            ) + expression.get_db_converters(connection)
            if converters:
                found.append((index, converters, expression))
        return found

    def instance(self, row: Sequence[Any]) -> ModelT:
        values = list(row)
        for index, converters, expression in self._converters:
            for convert in converters:
                values[index] = convert(values[index], expression, connection)
        return self.model.from_db(connection.alias, self.attnames, values)


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
