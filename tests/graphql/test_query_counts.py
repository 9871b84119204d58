"""No N+1: the number of SQL queries grows with the depth of a document, not with the data."""

from __future__ import annotations

import pytest

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


def test_all_82_people_cost_the_same_queries_as_one(gql, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        people = gql.data(EVERYONE_DEEP)["allPeople"]
    assert len(people) == 82


def test_each_branch_of_a_wide_document_costs_one_query(gql, django_assert_num_queries):
    # 1 for the people, then one per relation path: friends, homeworld, homeworld.residents,
    # films, films.planets.
    document = """{ allPeople { name friends { name } homeworld { name residents { name } }
                    films { title planets { name } } } }"""
    with django_assert_num_queries(6):
        gql.data(document)
