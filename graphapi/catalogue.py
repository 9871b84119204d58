"""The Star Wars data as an immutable snapshot kept in memory by each process (a read model),
rebuilt when the StarWarsRevision token changes; docs/graphql.md says how fresh it stays."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import Any, NamedTuple

from django.conf import settings
from django.db import models
from graphql import GraphQLResolveInfo

from graphapi.models import Film, Person, Planet, StarWarsRevision

logger = logging.getLogger(__name__)

_REQUEST_ATTRIBUTE = "graphapi_catalogue"

# Records carry the fields the schema exposes; relations are tuples of the related records,
# attached by the builder before the catalogue is published (hence object.__setattr__ there).


@dataclass(frozen=True, slots=True, eq=False)
class FilmRecord:
    id: int
    title: str
    episode_id: int
    director: str
    release_date: str
    planets: tuple[PlanetRecord, ...] = field(default=(), repr=False)
    characters: tuple[PersonRecord, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True, eq=False)
class PlanetRecord:
    id: int
    name: str
    climate: str
    terrain: str
    population: str
    residents: tuple[PersonRecord, ...] = field(default=(), repr=False)
    films: tuple[FilmRecord, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True, eq=False)
class PersonRecord:
    id: int
    name: str
    height: str
    mass: str
    hair_color: str
    skin_color: str
    eye_color: str
    birth_year: str
    gender: str
    friends: tuple[PersonRecord, ...] = field(default=(), repr=False)
    homeworld: PlanetRecord | None = field(default=None, repr=False)
    films: tuple[FilmRecord, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True, eq=False)
class Catalogue:
    token: uuid.UUID | None
    films: MappingProxyType[int, FilmRecord]
    planets: MappingProxyType[int, PlanetRecord]
    people: MappingProxyType[int, PersonRecord]
    all_films: tuple[FilmRecord, ...]
    all_planets: tuple[PlanetRecord, ...]
    all_people: tuple[PersonRecord, ...]


def catalogue_for(info: GraphQLResolveInfo) -> Catalogue:
    """The request's catalogue (the execution context value is the Django request)."""
    request = info.context
    found = getattr(request, _REQUEST_ATTRIBUTE, None)
    if found is None:
        found = current()
        setattr(request, _REQUEST_ATTRIBUTE, found)
    return found


# --- The process's snapshot ------------------------------------------------------------------


class _Published(NamedTuple):
    catalogue: Catalogue | None
    checked_at: float  # time.monotonic() when its token was last found current


_NOTHING = _Published(None, 0.0)
_published = _NOTHING
# Held while the token is read and the catalogue built, so that threads arriving together wait
# for one build instead of each running their own.
_lock = threading.Lock()


def current() -> Catalogue:
    """The process's catalogue: as it is while fresh enough, revalidated or rebuilt otherwise."""
    global _published
    published = _published
    if _fresh(published, time.monotonic()):
        return published.catalogue
    with _lock:
        published, checked_at = _published, time.monotonic()
        if _fresh(published, checked_at):
            return published.catalogue  # another thread has just revalidated it
        token = _stored_token()
        catalogue = published.catalogue
        if catalogue is None or catalogue.token != token:
            catalogue = build(token)
        _published = _Published(catalogue, checked_at)
        return catalogue


def _fresh(published: _Published, now: float) -> bool:
    interval = settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS
    return published.catalogue is not None and now - published.checked_at < interval


def forget() -> None:
    """Drop this process's catalogue: the next request reads the tables again."""
    global _published
    with _lock:
        _published = _NOTHING


def _stored_token() -> uuid.UUID | None:
    return (
        StarWarsRevision.objects.filter(pk=StarWarsRevision.SINGLETON_ID)
        .values_list("token", flat=True)
        .first()
    )


# --- Building ----------------------------------------------------------------------------------


def _lists(record: type) -> tuple[str, ...]:
    """The list relations, attached once every record exists."""
    return tuple(f.name for f in fields(record) if f.default == ())


_LISTS = {record: _lists(record) for record in (FilmRecord, PlanetRecord, PersonRecord)}


def build(token: uuid.UUID | None) -> Catalogue:
    """Every film, planet and person with every relation the schema exposes, in six queries.

    `token` is read before the rows; links whose ends were not read (deleted meanwhile) are
    left out until the next rebuild.
    """
    # Records hash by identity (eq=False).
    links: defaultdict[tuple[Any, str], list[Any]] = defaultdict(list)
    planets = {row["id"]: PlanetRecord(**row) for row in _rows(Planet, PlanetRecord)}
    people: dict[int, PersonRecord] = {}
    # People come in id order, so each planet's residents do too.
    for row in _rows(Person, PersonRecord, "homeworld_id"):
        homeworld = planets.get(row.pop("homeworld_id"))
        people[row["id"]] = person = PersonRecord(**row, homeworld=homeworld)
        if homeworld is not None:
            links[homeworld, "residents"].append(person)
    films = {
        row["id"]: FilmRecord(**row | {"release_date": row["release_date"].isoformat()})
        for row in _rows(Film, FilmRecord)
    }
    for film, planet in _pairs(Film.planets.through, "film_id", films, "planet_id", planets):
        links[film, "planets"].append(planet)
        links[planet, "films"].append(film)
    for film, person in _pairs(Film.characters.through, "film_id", films, "person_id", people):
        links[film, "characters"].append(person)
        links[person, "films"].append(film)
    for person, friend in _pairs(
        Person.friends.through, "from_person_id", people, "to_person_id", people
    ):
        links[person, "friends"].append(friend)
    for record in (*films.values(), *planets.values(), *people.values()):
        for name in _LISTS[type(record)]:
            object.__setattr__(record, name, tuple(links.get((record, name), ())))

    catalogue = Catalogue(
        token=token,
        films=MappingProxyType(films),
        planets=MappingProxyType(planets),
        people=MappingProxyType(people),
        all_films=tuple(films.values()),
        all_planets=tuple(planets.values()),
        all_people=tuple(people.values()),
    )
    logger.info(
        "Star Wars catalogue built at revision %s: %d films, %d planets, %d people",
        token,
        len(films),
        len(planets),
        len(people),
    )
    return catalogue


def _rows(model: type[models.Model], record: type, *extra: str) -> Iterable[dict[str, Any]]:
    """The record's fields from the model's table: those without a default (relations have one),
    and the `extra` columns."""
    columns = [f.name for f in fields(record) if f.default is MISSING]
    return model._default_manager.order_by("pk").values(*columns, *extra)


def _pairs(
    model: type[models.Model],
    source: str,
    sources: dict[int, Any],
    target: str,
    targets: dict[int, Any],
) -> Iterator[tuple[Any, Any]]:
    """The records at both ends of each row of `model`, ordered by (source, target) so that
    lists in both directions come out in id order."""
    rows = model._default_manager.order_by(source, target).values_list(source, target)
    for source_id, target_id in rows:
        here, there = sources.get(source_id), targets.get(target_id)
        if here is not None and there is not None:
            yield here, there
