"""Helpers for the GraphQL tests: the Star Wars data loaded by its own command, and a client."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

GRAPHQL_RESPONSE = "application/graphql-response+json"


@pytest.fixture
def starwars(db) -> None:
    call_command("load_starwars", stdout=io.StringIO())


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
