"""Generated GraphQL documents, valid and broken, never make /graphql answer a 500."""

from __future__ import annotations

import json

import pytest
from graphql import print_schema
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_graphql import queries

from graphapi.schema import schema as graphene_schema

pytestmark = [pytest.mark.fuzz, pytest.mark.django_db]

SDL = print_schema(graphene_schema.graphql_schema)
MEDIA_TYPES = ["application/json", "application/graphql-response+json"]


def post(client, body: bytes | str, accept: str):
    return client.post("/graphql", data=body, content_type="application/json", HTTP_ACCEPT=accept)


def assert_graphql_answer(response) -> None:
    assert response.status_code < 500, response.content[:300]
    body = json.loads(response.content)
    assert "data" in body or "errors" in body
    for error in body.get("errors", []):
        assert "Traceback" not in error["message"]


@given(document=queries(SDL), accept=st.sampled_from(MEDIA_TYPES))
def test_valid_documents_of_the_schema_are_answered(client, document, accept):
    response = post(client, json.dumps({"query": document}), accept)
    assert_graphql_answer(response)
    assert response.status_code == 200


GRAPHQL_PIECES = st.sampled_from(
    [
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ":",
        "...",
        "@include",
        "$id",
        "person",
        "film",
        "id:",
        '"1"',
        "1",
        "friends",
        "name",
        "__typename",
        "__schema",
        "fragment F on Person",
        "on",
        "query",
        "mutation",
        "subscription",
        "alias:",
        ",",
        "\n",
        "#",
        "\\u0000",
        "9999999999",
    ]
)


@given(
    pieces=st.lists(GRAPHQL_PIECES | st.text(max_size=5), max_size=60),
    variables=st.none() | st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5)),
    accept=st.sampled_from(MEDIA_TYPES),
)
def test_broken_documents_are_refused_with_a_client_error(client, pieces, variables, accept):
    body = {"query": " ".join(pieces), "variables": variables}
    assert_graphql_answer(post(client, json.dumps(body), accept))


@given(payload=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_bodies_that_are_not_graphql_requests_are_client_errors(client, payload):
    response = client.post("/graphql", data=payload, content_type="application/json")
    assert 400 <= response.status_code < 500 or response.status_code == 200
    assert b"Traceback" not in response.content
