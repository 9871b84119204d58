"""The in-memory Star Wars catalogue stays true to the database: every write moves the revision
(load_starwars, or whoever writes the tables, calls starwars_revision_bump),
the writing process answers the new data at once, other processes within
GRAPHQL_STARWARS_REVALIDATE_SECONDS, and nothing is rebuilt while the revision stands still.

"Another process" is this one with the writer's commit hook left out: inside a test's
transaction on_commit callbacks never run, so the catalogue is only refreshed the way a
process that did not write refreshes it, by revalidating the revision.
"""

from __future__ import annotations

import io
import logging
import threading
import time

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client

from config.settings import base as base_settings
from graphapi import catalogue
from graphapi.models import Film, Planet, StarWarsRevision
from graphapi.services import starwars_revision_bump
from tests.graphql.conftest import GraphQLClient
from tests.support.queries import content_queries

pytestmark = pytest.mark.usefixtures("starwars", "fresh_catalogue")

TATOOINE = "{ planet(id: 1) { name } }"
FILM_6 = '{ film(id: "6") { title planets { name residents { name } } } }'
LUKE = "{ person(id: 1) { name homeworld { name } friends { name } films { title } } }"
BUILT = "Star Wars catalogue built"


def planet_name(gql) -> str:
    return gql.data(TATOOINE)["planet"]["name"]


def revision() -> object:
    return StarWarsRevision.objects.get().token


def builds(caplog) -> int:
    return sum(BUILT in record.getMessage() for record in caplog.records)


@pytest.fixture
def rarely_revalidated(settings):
    """Other processes look at the revision once an hour: only the writer's hook can help."""
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 3600
    return settings


def rename_tatooine(name: str) -> None:
    planet = Planet.objects.get(pk=1)
    planet.name = name
    planet.save()
    starwars_revision_bump()


def test_load_starwars_moves_the_revision(db):
    before = revision()
    call_command("load_starwars", stdout=io.StringIO())
    assert revision() != before


def test_the_process_that_wrote_answers_the_new_data_at_once(
    gql, rarely_revalidated, django_capture_on_commit_callbacks
):
    assert planet_name(gql) == "Tatooine"
    with django_capture_on_commit_callbacks(execute=True):
        rename_tatooine("Tatooine II")
    assert planet_name(gql) == "Tatooine II"


def test_the_process_that_ran_load_starwars_answers_the_loaded_data_at_once(
    gql, rarely_revalidated, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        rename_tatooine("Tatooine II")
    assert planet_name(gql) == "Tatooine II"
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_starwars", stdout=io.StringIO())
    assert planet_name(gql) == "Tatooine"


def test_another_process_answers_the_old_data_until_it_revalidates(gql, settings):
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 3600
    assert planet_name(gql) == "Tatooine"
    rename_tatooine("Tatooine II")
    assert planet_name(gql) == "Tatooine", "the revision was read again before it was due"
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 0
    assert planet_name(gql) == "Tatooine II"


def test_another_process_answers_the_new_data_within_the_default_second(gql, settings):
    assert base_settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS == 1
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 1
    assert planet_name(gql) == "Tatooine"
    rename_tatooine("Tatooine II")
    time.sleep(1.05)
    assert planet_name(gql) == "Tatooine II"


def test_another_process_answers_what_load_starwars_loaded_once_it_revalidates(gql, settings):
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 0
    Film.objects.get(pk=6).planets.clear()
    rename_tatooine("Tatooine II")
    assert planet_name(gql) == "Tatooine II"
    assert gql.data(FILM_6)["film"]["planets"] == []
    call_command("load_starwars", stdout=io.StringIO())
    assert planet_name(gql) == "Tatooine"
    assert len(gql.data(FILM_6)["film"]["planets"]) == 13


def test_the_catalogue_is_not_rebuilt_while_the_revision_stands_still(gql, settings, caplog):
    settings.GRAPHQL_STARWARS_REVALIDATE_SECONDS = 0
    caplog.set_level(logging.INFO, logger="graphapi.catalogue")
    first = gql.data(LUKE)
    for _ in range(3):
        with content_queries(1):  # the revision, and nothing else
            assert gql.data(LUKE) == first
    assert builds(caplog) == 1
    rename_tatooine("Tatooine II")
    assert gql.data(LUKE)["person"]["homeworld"] == {"name": "Tatooine II"}
    assert builds(caplog) == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_requests_build_one_complete_catalogue(starwars, client, caplog):
    """Eight requests arrive together at a process with no catalogue: each answers the whole
    document, and the catalogue is built once (the others wait for it, never see it half-made)."""
    caplog.set_level(logging.INFO, logger="graphapi.catalogue")
    expected = GraphQLClient(client).data(FILM_6)
    catalogue.forget()
    start = threading.Barrier(8)
    answers: list[object] = []
    failures: list[BaseException] = []

    def ask() -> None:
        try:
            start.wait()
            answers.append(GraphQLClient(Client()).data(FILM_6))
        except BaseException as error:  # reported by the test thread
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    assert answers == [expected] * 8
    assert builds(caplog) == 2  # the one before forget(), and one for the eight
