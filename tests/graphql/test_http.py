"""GraphQL over HTTP: methods, request and response media types, and their status codes."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from tests.graphql.conftest import GRAPHQL_RESPONSE

pytestmark = pytest.mark.usefixtures("starwars")

FILM_TITLE = "{ film(id: 1) { title } }"
A_NEW_HOPE = {"data": {"film": {"title": "A New Hope"}}}
NOT_PARSEABLE = "{ film(id: 1) { title "
NOT_VALID = "{ film(id: 1) { mass } }"
PERSON_BY_VARIABLE = "query ($id: ID!) { person(id: $id) { name } }"


def test_a_query_over_get_answers_json(gql):
    response = gql.get(FILM_TITLE)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == A_NEW_HOPE


def test_a_query_over_post_json_answers_json(gql):
    response = gql.post(FILM_TITLE)
    assert response.status_code == 200
    assert response.json() == A_NEW_HOPE


def test_a_graphql_document_body_is_accepted(client):
    response = client.post("/graphql", FILM_TITLE, content_type="application/graphql")
    assert response.status_code == 200
    assert response.json() == A_NEW_HOPE


def test_the_operation_name_selects_among_several(gql):
    document = "query A { hello } query B { film(id: 1) { title } }"
    response = gql.client.post(
        "/graphql",
        json.dumps({"query": document, "operationName": "B"}),
        content_type="application/json",
    )
    assert response.json() == A_NEW_HOPE


def test_graphql_response_json_is_answered_when_accepted(gql):
    response = gql.post(FILM_TITLE, accept=f"{GRAPHQL_RESPONSE}, application/json;q=0.9")
    assert response.status_code == 200
    assert response["Content-Type"] == GRAPHQL_RESPONSE
    assert response["Vary"] == "Accept"
    assert response.json() == A_NEW_HOPE


@pytest.mark.parametrize(
    "accept",
    [
        GRAPHQL_RESPONSE,
        f"{GRAPHQL_RESPONSE}, application/json",
        f"{GRAPHQL_RESPONSE};q=0.8, */*;q=0.1",
    ],
)
def test_graphql_response_json_is_answered_when_named_and_preferred(gql, accept):
    response = gql.post(FILM_TITLE, accept=accept)
    assert response["Content-Type"] == GRAPHQL_RESPONSE
    assert response.json() == A_NEW_HOPE


@pytest.mark.parametrize(
    "accept",
    [
        "*/*",
        "application/*",
        "application/json",
        f"application/json, {GRAPHQL_RESPONSE}",
        f"{GRAPHQL_RESPONSE};q=0.5, application/json",
        "application/xml",
    ],
)
def test_json_is_answered_otherwise(gql, accept):
    response = gql.post(FILM_TITLE, accept=accept)
    assert response["Content-Type"] == "application/json"
    assert response.json() == A_NEW_HOPE


@pytest.mark.parametrize(
    ("accept", "document", "status"),
    [
        (GRAPHQL_RESPONSE, NOT_PARSEABLE, 400),
        (GRAPHQL_RESPONSE, NOT_VALID, 422),
        ("application/json", NOT_PARSEABLE, 400),
        ("application/json", NOT_VALID, 400),
    ],
)
def test_documents_that_fail_to_parse_or_validate_get_their_status(gql, accept, document, status):
    response = gql.post(document, accept=accept)
    assert response.status_code == status
    assert response["Content-Type"] == accept
    body = response.json()
    assert "data" not in body
    assert body["errors"][0]["locations"]


def test_a_parse_error_says_what_it_expected(gql):
    message = gql.post(NOT_PARSEABLE, accept=GRAPHQL_RESPONSE).json()["errors"][0]["message"]
    assert message.startswith("Syntax Error: Expected Name, found <EOF>")


def test_a_mutation_over_get_is_405(gql):
    response = gql.get("mutation { hello }")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json() == {"errors": [{"message": "A mutation must be sent with POST."}]}


def test_a_mutation_over_post_is_refused_as_there_are_none(gql):
    response = gql.post("mutation { hello }", accept=GRAPHQL_RESPONSE)
    assert response.status_code == 400
    assert "mutation" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_other_methods_are_405_naming_get_and_post(client, method):
    response = getattr(client, method)("/graphql", FILM_TITLE, content_type="application/json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, POST"
    assert response.json()["errors"][0]["message"] == "GraphQL accepts GET and POST only."


@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/plain",
        "application/xml",
        "",
    ],
)
def test_an_unsupported_body_type_is_415(client, content_type):
    response = client.generic("POST", "/graphql", f"query={FILM_TITLE}", content_type=content_type)
    assert response.status_code == 415
    assert response["Accept-Post"] == "application/json, application/graphql"
    assert "application/json" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"query": ', "The request body is not valid JSON."),
        (b"[" * 200_000 + b"]" * 200_000, "The request body is not valid JSON."),
        (b'["{ hello }"]', "The request body must be a JSON object."),
        (b'{"query": "{ hello }"}\xff', "The request body is not UTF-8."),
        (b'{"query": 42}', "query must be a string."),
        (b"{}", "Must provide query string."),
        (b'{"query": "{ hello }", "variables": [1]}', "variables must be a JSON object."),
        (b'{"query": "{ hello }", "operationName": 3}', "operationName must be a string."),
    ],
)
def test_a_malformed_request_is_400_with_a_clear_message(client, body, message):
    response = client.post(
        "/graphql", body, content_type="application/json", headers={"Accept": GRAPHQL_RESPONSE}
    )
    assert response.status_code == 400
    assert response["Content-Type"] == GRAPHQL_RESPONSE
    assert response.json() == {"errors": [{"message": message}]}


def test_a_get_without_a_query_is_400(gql):
    response = gql.client.get("/graphql", headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"errors": [{"message": "Must provide query string."}]}


def test_variables_that_are_not_json_are_400(gql):
    response = gql.get(PERSON_BY_VARIABLE, variables="{id: 1")
    assert response.status_code == 400
    assert response.json() == {"errors": [{"message": "Variables are invalid JSON."}]}


def test_variables_given_as_json_over_get_are_used(gql):
    response = gql.get(PERSON_BY_VARIABLE, variables='{"id": "5"}')
    assert response.json() == {"data": {"person": {"name": "Leia Organa"}}}


@pytest.mark.parametrize("accept", [GRAPHQL_RESPONSE, "application/json"])
@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({}, "Variable '$id' of required type 'ID!' was not provided."),
        (
            {"id": {"x": 1}},
            "Variable '$id' got invalid value {'x': 1}; ID cannot represent value: {'x': 1}",
        ),
        ({"id": None}, "Variable '$id' of non-null type 'ID!' must not be null."),
    ],
)
def test_bad_variables_are_400_naming_the_variable(gql, accept, variables, message):
    response = gql.post(PERSON_BY_VARIABLE, variables, accept=accept)
    assert response.status_code == 400
    body = response.json()
    assert "data" not in body
    assert body["errors"][0]["message"] == message


@override_settings(MAX_BODY_BYTES=200, DATA_UPLOAD_MAX_MEMORY_SIZE=200)
def test_a_body_over_the_maximum_is_413(gql):
    response = gql.post("{ hello }" + " " * 300)
    assert response.status_code == 413
    assert response.json() == {
        "errors": [{"message": "The request body is larger than 200 bytes."}]
    }


def test_an_unknown_id_beside_a_known_one_is_null_with_status_200(gql):
    response = gql.post(
        '{ a: person(id: "1") { name } b: person(id: "0") { name } }', accept=GRAPHQL_RESPONSE
    )
    assert response.status_code == 200
    assert response.json() == {"data": {"a": {"name": "Luke Skywalker"}, "b": None}}
