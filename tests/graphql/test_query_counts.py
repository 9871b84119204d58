"""No N+1, and no growth with depth: the Star Wars data is read once per process, in a fixed
number of queries whatever the document, and then costs no query at all while it is current."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings

from tests.support.queries import content_queries

pytestmark = pytest.mark.usefixtures("starwars", "fresh_catalogue")

# The revision, then films, planets, people (with their homeworld), and the three link tables.
BUILD_QUERIES = 7

SHALLOW = "{ film(id: 6) { title } }"
FRIENDS_OF_FRIENDS = "{ person(id: 1) { friends { friends { name } } } }"
PLANET_RESIDENTS = "{ film(id: 6) { planets { residents { name } } } }"
THROUGH_FRAGMENTS = """
query { film(id: 6) { ...Planets } }
fragment Planets on Film { planets { ... on Planet { residents { name } } } }
"""
EVERYONE_DEEP = "{ allPeople { friends { friends { name } } } }"
WIDE = """{ allPeople { name friends { name } homeworld { name residents { name } }
            films { title planets { name } } } }"""
# Eight fields on the longest path.
EIGHT_LEVELS = """{ person(id: 1) { friends { friends { friends { friends { friends { friends {
  name } } } } } } } }"""


def _shallow(data: dict[str, Any]) -> None:
    assert data == {"film": {"title": "Revenge of the Sith"}}


def _friends_of_friends(data: dict[str, Any]) -> None:
    han = data["person"]["friends"][3]
    assert [friend["name"] for friend in han["friends"]] == [
        "Luke Skywalker",
        "R2-D2",
        "Leia Organa",
    ]


def _planet_residents(data: dict[str, Any]) -> None:
    planets = data["film"]["planets"]
    assert len(planets) == 13
    assert sum(len(planet["residents"]) for planet in planets) > 13


def _everyone_deep(data: dict[str, Any]) -> None:
    people = data["allPeople"]
    assert len(people) == 82
    assert [friend["name"] for friend in people[0]["friends"][3]["friends"]] == [
        "Luke Skywalker",
        "R2-D2",
        "Leia Organa",
    ]


def _wide(data: dict[str, Any]) -> None:
    luke = data["allPeople"][0]
    assert luke["homeworld"]["name"] == "Tatooine"
    assert "Luke Skywalker" in [resident["name"] for resident in luke["homeworld"]["residents"]]
    assert luke["films"][0]["title"] == "A New Hope"


def _eight_levels(data: dict[str, Any]) -> None:
    # Each first friend: Luke -> C-3PO -> Luke -> C-3PO -> Luke -> C-3PO -> Luke.
    person = data["person"]
    for _ in range(6):
        person = person["friends"][0]
    assert person == {"name": "Luke Skywalker"}


DOCUMENTS: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "shallow": (SHALLOW, _shallow),
    "friends of friends": (FRIENDS_OF_FRIENDS, _friends_of_friends),
    "planet residents": (PLANET_RESIDENTS, _planet_residents),
    "through fragments": (THROUGH_FRAGMENTS, _planet_residents),
    "all 82 people, deep": (EVERYONE_DEEP, _everyone_deep),
    "wide": (WIDE, _wide),
    "eight levels": (EIGHT_LEVELS, _eight_levels),
}


@pytest.mark.parametrize("name", DOCUMENTS)
def test_building_the_catalogue_costs_the_same_queries_for_any_document(gql, name):
    # fresh_catalogue emptied the process's catalogue: this request builds it.
    document, check = DOCUMENTS[name]
    with content_queries(BUILD_QUERIES):
        check(gql.data(document))


@pytest.mark.parametrize("name", DOCUMENTS)
@override_settings(GRAPHQL_STARWARS_REVALIDATE_SECONDS=3600)
def test_a_current_catalogue_answers_any_document_without_a_query(gql, name):
    gql.data(SHALLOW)
    document, check = DOCUMENTS[name]
    with content_queries(0):
        check(gql.data(document))


@pytest.mark.parametrize("name", DOCUMENTS)
@override_settings(GRAPHQL_STARWARS_REVALIDATE_SECONDS=0)
def test_revalidating_on_every_request_costs_one_query(gql, name):
    gql.data(SHALLOW)
    document, check = DOCUMENTS[name]
    with content_queries(1):
        check(gql.data(document))


FAN_OUT = """{ allFilms { characters { films { characters { films { characters {
  films { characters { name } } } } } } } } }"""


@override_settings(GRAPHQL_TIME_BUDGET_MS=300)
def test_a_fanning_out_document_reads_the_data_once_and_stops_at_the_time_budget(gql):
    # Written out, the answer would hold tens of millions of names. The data is read once
    # (the catalogue); building the answer runs into the time budget, which stops it with one
    # error instead of exhausting the worker.
    with content_queries(BUILD_QUERIES):
        response = gql.post(FAN_OUT)
    assert response.status_code == 200
    body = response.json()
    assert body["data"] is None
    assert [error["message"] for error in body["errors"]] == [
        "The query ran out of its time budget of 300 ms."
    ]
