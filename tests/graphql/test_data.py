"""The Star Wars data set: its size, its repaired defects, and the command that loads it."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

pytestmark = pytest.mark.usefixtures("starwars")

FIXTURE = Path(settings.BASE_DIR) / "graphapi" / "fixtures" / "starwars.json"
COUNTS = "{ allFilms { id } allPlanets { id } allPeople { id } }"
FILM_PLANETS = "{ allFilms { id planets { id } } }"
HOMEWORLDS = "{ allPeople { id homeworld { id } } }"
RESIDENTS = "{ allPlanets { id residents { id } } }"
FRIENDS = "{ allPeople { id friends { id } } }"
FILM_CHARACTERS = "{ allFilms { id characters { id } } }"
PERSON_FILMS = "{ allPeople { id films { id } } }"

# The classic GraphQL Star Wars example's friendships, on SWAPI ids.
CLASSIC_FRIENDS = {
    "1": ["2", "3", "5", "14"],
    "2": ["1", "3", "5", "14"],
    "3": ["1", "5", "14"],
    "4": ["12"],
    "5": ["1", "2", "3", "14"],
    "12": ["4"],
    "14": ["1", "3", "5"],
}


def ids(items: list[dict]) -> list[str]:
    return [item["id"] for item in items]


def test_the_data_set_has_6_films_60_planets_and_82_people(gql):
    data = gql.data(COUNTS)
    assert (len(data["allFilms"]), len(data["allPlanets"]), len(data["allPeople"])) == (6, 60, 82)


def test_no_film_lists_a_planet_twice(gql):
    films = gql.data(FILM_PLANETS)["allFilms"]
    for film in films:
        assert len(ids(film["planets"])) == len(set(ids(film["planets"]))), film["id"]
    counts = {film["id"]: len(film["planets"]) for film in films}
    assert counts == {"1": 3, "2": 4, "3": 5, "4": 3, "5": 5, "6": 13}


def test_the_shipped_fixture_itself_has_no_duplicate_links_and_no_opening_crawl():
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))
    films = [row for row in rows if row["model"] == "graphapi.film"]
    for film in films:
        for relation in ("planets", "characters"):
            links = film["fields"][relation]
            assert len(links) == len(set(links)), (film["pk"], relation)
        assert "opening_crawl" not in film["fields"]
    assert Counter(row["model"] for row in rows) == {
        "graphapi.film": 6,
        "graphapi.planet": 60,
        "graphapi.person": 82,
    }


def test_a_planets_residents_are_exactly_the_people_whose_homeworld_it_is(gql):
    by_homeworld: dict[str, set[str]] = {}
    for person in gql.data(HOMEWORLDS)["allPeople"]:
        by_homeworld.setdefault(person["homeworld"]["id"], set()).add(person["id"])
    planets = gql.data(RESIDENTS)["allPlanets"]
    for planet in planets:
        assert set(ids(planet["residents"])) == by_homeworld.get(planet["id"], set()), planet["id"]
    assert sum(len(planet["residents"]) for planet in planets) == 82


def test_a_persons_films_are_the_films_that_list_them_as_a_character(gql):
    from_films = {
        (person["id"], film["id"])
        for film in gql.data(FILM_CHARACTERS)["allFilms"]
        for person in film["characters"]
    }
    from_people = {
        (person["id"], film["id"])
        for person in gql.data(PERSON_FILMS)["allPeople"]
        for film in person["films"]
    }
    assert from_films == from_people
    assert len(from_films) == 162


def test_friends_follow_the_classic_example_and_nobody_else_has_any(gql):
    friends = {person["id"]: ids(person["friends"]) for person in gql.data(FRIENDS)["allPeople"]}
    assert {pk: links for pk, links in friends.items() if links} == CLASSIC_FRIENDS


def test_films_have_no_opening_crawl_field(gql):
    response = gql.post("{ film(id: 1) { openingCrawl } }")
    # application/json keeps graphene-django's 400, as the contract says (the draft's
    # "Status Codes", "application/json" would say 200: a SHOULD, allowed in the audit test).
    assert response.status_code == 400
    assert "data" not in response.json()
    assert "Cannot query field 'openingCrawl'" in response.json()["errors"][0]["message"]


def test_load_starwars_run_again_changes_nothing(gql):
    before = gql.data(FRIENDS), gql.data(FILM_PLANETS), gql.data(HOMEWORLDS)
    out = io.StringIO()
    call_command("load_starwars", stdout=out)
    assert "6 films, 60 planets, 82 people" in out.getvalue()
    assert (gql.data(FRIENDS), gql.data(FILM_PLANETS), gql.data(HOMEWORLDS)) == before
