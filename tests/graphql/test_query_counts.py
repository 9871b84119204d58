"""No N+1: the number of SQL queries grows with the depth of a document, not with the data."""

from __future__ import annotations

import pytest
from django.test import override_settings

pytestmark = pytest.mark.usefixtures("starwars")

FRIENDS_OF_FRIENDS = "{ person(id: 1) { friends { friends { name } } } }"
PLANET_RESIDENTS = "{ film(id: 6) { planets { residents { name } } } }"
THROUGH_FRAGMENTS = """
query { film(id: 6) { ...Planets } }
fragment Planets on Film { planets { ... on Planet { residents { name } } } }
"""
EVERYONE_DEEP = "{ allPeople { friends { friends { name } } } }"


def test_friends_of_friends_take_one_query_per_level(gql, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        person = gql.data(FRIENDS_OF_FRIENDS)["person"]
    han = person["friends"][3]
    assert [friend["name"] for friend in han["friends"]] == [
        "Luke Skywalker",
        "R2-D2",
        "Leia Organa",
    ]


def test_planets_and_their_residents_take_one_query_per_level(gql, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        planets = gql.data(PLANET_RESIDENTS)["film"]["planets"]
    assert len(planets) == 13
    assert sum(len(planet["residents"]) for planet in planets) > 13


def test_fragments_are_planned_like_plain_fields(gql, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        planets = gql.data(THROUGH_FRAGMENTS)["film"]["planets"]
    assert sum(len(planet["residents"]) for planet in planets) > 13


def test_all_82_people_cost_no_more_queries_than_one(gql, django_assert_num_queries):
    # The people, then their friends; the friends' friends are people already loaded.
    with django_assert_num_queries(2):
        people = gql.data(EVERYONE_DEEP)["allPeople"]
    assert len(people) == 82
    luke = people[0]
    assert [friend["name"] for friend in luke["friends"][3]["friends"]] == [
        "Luke Skywalker",
        "R2-D2",
        "Leia Organa",
    ]


def test_each_branch_of_a_wide_document_costs_one_query(gql, django_assert_num_queries):
    # 1 for the people, then one per relation path: friends, homeworld, homeworld.residents,
    # films, films.planets.
    document = """{ allPeople { name friends { name } homeworld { name residents { name } }
                    films { title planets { name } } } }"""
    with django_assert_num_queries(6):
        gql.data(document)


FAN_OUT = """{ allFilms { characters { films { characters { films { characters {
  films { characters { name } } } } } } } } }"""


@override_settings(GRAPHQL_TIME_BUDGET_MS=300)
def test_a_fanning_out_document_reads_each_link_once_and_stops_at_the_time_budget(
    gql, django_assert_max_num_queries
):
    # Written out, the answer would hold tens of millions of names. Loading reads each
    # relation once for the distinct objects (3 queries); building the answer runs into the
    # time budget, which stops it with one error instead of exhausting the worker.
    with django_assert_max_num_queries(3):
        response = gql.post(FAN_OUT)
    assert response.status_code == 200
    body = response.json()
    assert body["data"] is None
    assert [error["message"] for error in body["errors"]] == [
        "The query ran out of its time budget of 300 ms."
    ]
