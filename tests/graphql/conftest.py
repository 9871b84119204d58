"""Helpers for the GraphQL tests: the Star Wars data loaded by its own command, and a client."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from graphapi.models import Film

GRAPHQL_RESPONSE = "application/graphql-response+json"


@pytest.fixture(scope="session")
def _starwars_loaded(django_db_setup, django_db_blocker) -> None:
    # Once per session: each test's transaction is rolled back, so the rows stay as loaded.
    with django_db_blocker.unblock():
        call_command("load_starwars", stdout=io.StringIO())


@pytest.fixture
def starwars(_starwars_loaded, db) -> None:
    """The Star Wars data, loaded by its own management command."""
    if not Film.objects.exists():
        # A transactional test (live_server) empties every table when it ends.
        call_command("load_starwars", stdout=io.StringIO())


@pytest.fixture
def fresh_catalogue() -> None:
    """No catalogue in the process yet, for tests about building one or that read the revision
    rarely (a catalogue built in an earlier test may hold that test's rolled-back writes)."""
    from graphapi import catalogue

    catalogue.forget()


@pytest.fixture(autouse=True)
def generous_time_budget(settings) -> None:
    """The time budget, and the reads charged for the time a request used, are production
    limits; a busy CI machine must not trip them by chance. Their own tests set them explicitly."""
    settings.GRAPHQL_TIME_BUDGET_MS = 60_000
    settings.GRAPHQL_READ_COST_MS = 60_000


class GraphQLClient:
    """Sends documents to /graphql the way a client would, over real HTTP semantics."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def post(self, query: str, variables: Any = None, accept: str = "application/json", **extra):
        body: dict[str, Any] = {"query": query}
        if variables is not None:
            body["variables"] = variables
        return self.client.post(
            "/graphql",
            data=json.dumps(body),
            content_type="application/json",
            headers={"Accept": accept},
            **extra,
        )

    def get(self, query: str, accept: str = "application/json", **params: str):
        return self.client.get("/graphql", {"query": query, **params}, headers={"Accept": accept})

    def data(self, query: str, variables: Any = None) -> dict[str, Any]:
        """The data of a document that must succeed: 200 and no errors."""
        response = self.post(query, variables)
        assert response.status_code == 200, response.content
        body = response.json()
        assert "errors" not in body, body["errors"]
        return body["data"]


@pytest.fixture
def gql(client: Client) -> GraphQLClient:
    return GraphQLClient(client)


@pytest.fixture
def api_etag(client: Client):
    """api_etag(article) -> the ETag GET /api/v1.2/... answers for the article now."""

    def etag(article) -> str:
        response = client.get(f"/api/v1.2/blogs/{article.blog_id}/articles/{article.pk}")
        assert response.status_code == 200
        return response["ETag"]

    return etag
