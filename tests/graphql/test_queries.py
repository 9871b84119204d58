"""The contract's example queries, answered with the exact Star Wars data."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("starwars")

HELLO = "{ hello }"
FILM = "{ film(id: 1) { id title episodeId director releaseDate } }"
FILM_PLANET_RESIDENTS = "{ film(id: 1) { planets { name residents { name } } } }"
LUKE_FRIENDS = '{ person(id: "1") { name friends { name } } }'
PERSON_BY_VARIABLE = "query Who($id: ID!) { person(id: $id) { name homeworld { name } } }"
FOUR_LEVELS = "{ film(id: 1) { characters { name friends { name homeworld { name } } } } }"
UNKNOWN_IDS = """{
  person(id: "9999") { name }
  film(id: "abc") { title }
  planet(id: "-1") { name }
  huge: person(id: "99999999999999999999999999") { name }
}"""
FRAGMENTS = """
query { person(id: 1) { ...Named homeworld { ... on Planet { name climate } } } }
fragment Named on Person { id name }
"""
TYPENAMES = "{ __typename person(id: 1) { __typename homeworld { __typename } } }"


def test_hello_answers_a_fixed_greeting(gql):
    first = gql.data(HELLO)["hello"]
    assert first
    assert gql.data(HELLO)["hello"] == first


def test_film_one_is_a_new_hope_with_its_facts(gql):
    assert gql.data(FILM)["film"] == {
        "id": "1",
        "title": "A New Hope",
        "episodeId": 4,
        "director": "George Lucas",
        "releaseDate": "1977-05-25",
    }


def test_a_new_hope_is_set_on_tatooine_where_luke_skywalker_lives(gql):
    planets = gql.data(FILM_PLANET_RESIDENTS)["film"]["planets"]
    assert [planet["name"] for planet in planets] == ["Tatooine", "Alderaan", "Yavin IV"]
    tatooine = planets[0]
    assert {"name": "Luke Skywalker"} in tatooine["residents"]


def test_luke_skywalkers_friends_are_han_leia_and_the_droids_in_id_order(gql):
    person = gql.data(LUKE_FRIENDS)["person"]
    assert person["name"] == "Luke Skywalker"
    assert [friend["name"] for friend in person["friends"]] == [
        "C-3PO",
        "R2-D2",
        "Leia Organa",
        "Han Solo",
    ]


def test_friendship_is_one_way_as_in_the_classic_example(gql):
    han = gql.data("{ person(id: 14) { friends { name } } }")["person"]
    threepio = gql.data("{ person(id: 2) { friends { name } } }")["person"]
    assert {"name": "Han Solo"} in threepio["friends"]
    assert {"name": "C-3PO"} not in han["friends"]


def test_darth_vader_and_tarkin_are_each_others_only_friends(gql):
    data = gql.data(
        "{ vader: person(id: 4) { friends { name } } tarkin: person(id: 12) { friends { name } } }"
    )
    assert data["vader"]["friends"] == [{"name": "Wilhuff Tarkin"}]
    assert data["tarkin"]["friends"] == [{"name": "Darth Vader"}]


def test_a_person_without_friends_has_an_empty_list(gql):
    assert gql.data("{ person(id: 6) { name friends { name } } }")["person"] == {
        "name": "Owen Lars",
        "friends": [],
    }


def test_variables_select_the_person(gql):
    for value in ("1", 1):
        person = gql.data(PERSON_BY_VARIABLE, {"id": value})["person"]
        assert person == {"name": "Luke Skywalker", "homeworld": {"name": "Tatooine"}}


def test_luke_appears_in_four_films(gql):
    films = gql.data("{ person(id: 1) { films { title } } }")["person"]["films"]
    assert [film["title"] for film in films] == [
        "A New Hope",
        "The Empire Strikes Back",
        "Return of the Jedi",
        "Revenge of the Sith",
    ]


def test_a_planet_lists_the_films_it_appears_in(gql):
    planet = gql.data("{ planet(id: 2) { name climate terrain population films { id } } }")
    assert planet["planet"] == {
        "name": "Alderaan",
        "climate": "temperate",
        "terrain": "grasslands, mountains",
        "population": "2000000000",
        "films": [{"id": "1"}, {"id": "6"}],
    }


def test_selections_nest_four_levels_deep(gql):
    characters = gql.data(FOUR_LEVELS)["film"]["characters"]
    luke = next(person for person in characters if person["name"] == "Luke Skywalker")
    assert luke["friends"][3] == {"name": "Han Solo", "homeworld": {"name": "Corellia"}}
    assert {"name": "Leia Organa", "homeworld": {"name": "Alderaan"}} in luke["friends"]
    assert len(characters) == 18


def test_unknown_ids_answer_null_without_an_error(gql):
    assert gql.data(UNKNOWN_IDS) == {"person": None, "film": None, "planet": None, "huge": None}


def test_an_id_longer_than_python_converts_answers_null_without_an_error(gql):
    # int() refuses strings of more than 4,300 digits; such an id names nothing.
    digits = "9" * 5000
    document = (
        f'{{ person(id: "{digits}") {{ name }} film(id: "{digits}") {{ title }}'
        f' planet(id: "{digits}") {{ name }} blog(id: "{digits}") {{ title }} }}'
    )
    assert gql.data(document) == {"person": None, "film": None, "planet": None, "blog": None}


def test_fragments_and_inline_fragments_select_fields(gql):
    assert gql.data(FRAGMENTS)["person"] == {
        "id": "1",
        "name": "Luke Skywalker",
        "homeworld": {"name": "Tatooine", "climate": "arid"},
    }


def test_typename_works_at_every_level(gql):
    assert gql.data(TYPENAMES) == {
        "__typename": "Query",
        "person": {"__typename": "Person", "homeworld": {"__typename": "Planet"}},
    }


def test_all_films_lists_the_six_films_in_episode_release_order(gql):
    films = gql.data("{ allFilms { id title } }")["allFilms"]
    assert [film["title"] for film in films] == [
        "A New Hope",
        "The Empire Strikes Back",
        "Return of the Jedi",
        "The Phantom Menace",
        "Attack of the Clones",
        "Revenge of the Sith",
    ]
    assert [film["id"] for film in films] == ["1", "2", "3", "4", "5", "6"]
