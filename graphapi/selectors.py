"""Reads of the Star Wars data for the GraphQL resolvers, with the relations they will walk."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models


def starwars_object(
    *, model: type[models.Model], object_id: str, prefetch: Iterable[str]
) -> models.Model | None:
    """One film, planet or person by its SWAPI id; None for an id that names nothing."""
    # SWAPI ids are plain decimal numbers; int() would also take " 1", "1_0" or non-ASCII digits.
    if not (object_id.isascii() and object_id.isdigit()):
        return None
    return model.objects.prefetch_related(*prefetch).filter(pk=int(object_id)).first()


def starwars_list(*, model: type[models.Model], prefetch: Iterable[str]) -> list[models.Model]:
    """Every film, planet or person, in SWAPI id order."""
    return list(model.objects.prefetch_related(*prefetch).order_by("pk"))
