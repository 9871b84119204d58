"""GraphQL over HTTP: methods, request and response media types, and their status codes."""

from __future__ import annotations

import http.client
import json
from urllib.parse import quote, urlsplit

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
        # application/json: graphene-django's codes, as the contract says.
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
    # application/json: a request error is graphene-django's 400, as the contract says.
    response = gql.post("mutation { hello }")
    assert response.status_code == 400
    assert "mutation" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_other_methods_are_405_naming_the_allowed_ones(client, method):
    response = getattr(client, method)("/graphql", FILM_TITLE, content_type="application/json")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"
    assert response.json()["errors"][0]["message"] == "GraphQL accepts GET, HEAD and POST only."


@pytest.mark.parametrize("accept", [None, "text/html", GRAPHQL_RESPONSE])
def test_options_answers_the_methods_as_the_rest_resources_do(client, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = client.options("/graphql", HTTP_ORIGIN="https://other.example", **headers)
    assert response.status_code == 200
    assert response["Allow"] == "GET, HEAD, POST, OPTIONS"
    assert response.content == b""
    # Counted as a read, as a REST OPTIONS is; and no CORS grant for another origin.
    assert response["RateLimit"].startswith('"read";')
    assert "Access-Control-Allow-Origin" not in response


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
def test_bad_variables_are_refused_naming_the_variable(gql, accept, variables, message):
    response = gql.post(PERSON_BY_VARIABLE, variables, accept=accept)
    # 422 with application/graphql-response+json (issue 15; the draft's example says 400, its
    # rule only 4xx); graphene-django's 400 with application/json, as the contract says.
    assert response.status_code == (422 if accept == GRAPHQL_RESPONSE else 400)
    body = response.json()
    assert "data" not in body
    assert body["errors"][0]["message"] == message


@pytest.mark.parametrize(("accept", "status"), [(GRAPHQL_RESPONSE, 400), ("application/json", 400)])
def test_an_operation_that_cannot_be_selected_is_400(gql, accept, status):
    # The draft, "Status Codes", both media types' "Operation cannot be determined".
    response = gql.client.post(
        "/graphql",
        json.dumps({"query": "query A { hello } query B { hello }", "operationName": "C"}),
        content_type="application/json",
        headers={"Accept": accept},
    )
    assert response.status_code == status
    assert response.json() == {"errors": [{"message": "Unknown operation named 'C'."}]}


@pytest.mark.parametrize("extensions", ["x", 1, True, [1]])
def test_extensions_that_are_not_an_object_are_400(client, extensions):
    # The draft, "Request Parameters": {extensions} is a map; anything else is not a
    # well-formed GraphQL-over-HTTP request.
    body = json.dumps({"query": "{ hello }", "extensions": extensions})
    response = client.post("/graphql", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"errors": [{"message": "extensions must be a JSON object."}]}
    response = client.get("/graphql", {"query": "{ hello }", "extensions": json.dumps(extensions)})
    assert response.status_code == 400


def test_extensions_as_an_object_are_accepted_and_ignored(gql):
    response = gql.client.post(
        "/graphql",
        json.dumps({"query": FILM_TITLE, "extensions": {"vendor": {"trace": True}}}),
        content_type="application/json",
    )
    assert response.json() == A_NEW_HOPE
    response = gql.get(FILM_TITLE, extensions='{"vendor": {}}')
    assert response.json() == A_NEW_HOPE


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


def test_head_answers_as_get_without_a_body(live_server, starwars):
    connection = http.client.HTTPConnection(urlsplit(live_server.url).netloc, timeout=10)
    try:
        connection.request("HEAD", "/graphql?query=" + quote(FILM_TITLE))
        query = connection.getresponse()
        assert (query.status, query.read()) == (200, b"")
        assert query.headers["Content-Type"] == "application/json"
        connection.request("HEAD", "/graphql", headers={"Accept": "text/html"})
        page = connection.getresponse()
        assert (page.status, page.read()) == (200, b"")
        assert page.headers["Content-Type"].startswith("text/html")
    finally:
        connection.close()


def test_head_refuses_a_mutation_as_get_does(client):
    response = client.head("/graphql", {"query": "mutation { hello }"})
    assert response.status_code == 405


def test_graphql_counts_against_the_read_limit_and_answers_429_in_graphql(gql, settings):
    settings.RATE_LIMIT_READ = "3/min"
    answers = [gql.post(FILM_TITLE, accept=GRAPHQL_RESPONSE) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    refused = answers[-1]
    assert refused["Content-Type"] == GRAPHQL_RESPONSE
    assert int(refused["Retry-After"]) >= 1
    assert refused["RateLimit-Policy"] == '"read";q=3;w=60'
    [error] = refused.json()["errors"]
    assert "read limit" in error["message"] and "data" not in refused.json()
    assert answers[0]["RateLimit"].startswith('"read";r=2;')


def test_graphql_and_rest_reads_share_one_limit(client, gql, settings, db):
    settings.RATE_LIMIT_READ = "2/min"
    assert client.get("/api/v1.2/").status_code == 200
    assert gql.post(FILM_TITLE).status_code == 200
    assert client.get("/api/v1.2/").status_code == 429
    assert gql.post(FILM_TITLE).status_code == 429


def test_a_request_that_uses_its_time_budget_costs_more_reads(gql, settings):
    settings.RATE_LIMIT_READ = "100/min"
    settings.GRAPHQL_TIME_BUDGET_MS = 300
    settings.GRAPHQL_READ_COST_MS = 100
    # Films, their characters, their films...: hundreds of thousands of fields, far more than
    # 300 ms of resolving, so the request spends its whole budget.
    heavy = "{ allFilms { characters { films { characters { films { characters { name } } } } } } }"
    response = gql.post(heavy, accept=GRAPHQL_RESPONSE)
    remaining = int(response["RateLimit"].split("r=")[1].split(";")[0])
    # One read for the request, one more per 100 ms it used (at least the 300 ms budget).
    assert remaining <= 100 - 1 - 3
    assert gql.post(FILM_TITLE)["RateLimit"].startswith(f'"read";r={remaining - 1};')
