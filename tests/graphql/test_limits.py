"""Protection: every refusal is a GraphQL error naming its limit, with its status, never a 500."""

from __future__ import annotations

import pytest
from django.test import override_settings

from graphapi.validation import VALIDATION_WORK_REFUSAL
from tests.graphql.conftest import GRAPHQL_RESPONSE

pytestmark = pytest.mark.usefixtures("starwars")

MISSING_ID = "{ person { name } }"
UNKNOWN_FIELD = "{ film(id: 1) { title mass } }"
SCHEMA_NAME = "{ __schema { queryType { name } } }"
TYPE_NAME = '{ __type(name: "Film") { name } }'


def friends_chain(depth: int) -> str:
    """person { friends { ... { name } } }: `depth` fields on the longest path."""
    inner = "name"
    for _ in range(depth - 2):
        inner = f"friends {{ {inner} }}"
    return f"{{ person(id: 1) {{ {inner} }} }}"


def aliases(count: int) -> str:
    return "{ " + " ".join(f"h{n}: hello" for n in range(count)) + " }"


def refusal(gql, document: str, status: int = 422, single: bool = True) -> str:
    """The first error message of a refused document (and its only one when `single`)."""
    response = gql.post(document, accept=GRAPHQL_RESPONSE)
    assert response.status_code == status, response.content
    body = response.json()
    assert "data" not in body
    assert len(body["errors"]) == 1 or not single, body["errors"]
    return body["errors"][0]["message"]


def test_a_missing_required_id_is_refused(gql):
    assert refusal(gql, MISSING_ID) == (
        "Field 'person' argument 'id' of type 'ID!' is required, but it was not provided."
    )


def test_an_unknown_field_is_refused(gql):
    assert refusal(gql, UNKNOWN_FIELD) == "Cannot query field 'mass' on type 'Film'."


def test_a_document_at_the_depth_limit_runs(gql):
    data = gql.data(friends_chain(10))
    assert data["person"]["friends"][0]["friends"][0]["friends"]


def test_a_document_past_the_depth_limit_is_refused(gql):
    message = refusal(gql, friends_chain(11))
    assert message == "The query is nested 11 levels deep; the depth limit is 10."


def test_depth_is_counted_through_fragments(gql):
    document = """
    { person(id: 1) { ...A } }
    fragment A on Person { friends { ...B } }
    fragment B on Person { friends { ... on Person { friends { name } } } }
    """
    with override_settings(GRAPHQL_MAX_DEPTH=4):
        assert "depth limit is 4" in refusal(gql, document)
    with override_settings(GRAPHQL_MAX_DEPTH=5):
        assert gql.data(document)["person"]["friends"]


def test_typename_and_introspection_do_not_count_towards_depth(gql):
    with override_settings(GRAPHQL_MAX_DEPTH=2):
        data = gql.data(
            "{ person(id: 1) { name __typename } __schema { types { fields { type { name } } } } }"
        )
    assert data["person"]["__typename"] == "Person"


def test_introspection_that_recurses_through_types_is_refused(gql):
    document = "{ __schema { types { " + "fields { type { " * 5 + "name" + " } }" * 5 + " } } }"
    assert refusal(gql, document) == "Maximum introspection depth exceeded"


def test_aliases_up_to_the_limit_run(gql):
    assert len(gql.data(aliases(50))) == 50


def test_aliases_past_the_limit_are_refused(gql):
    assert refusal(gql, aliases(51)) == "The query uses 51 aliases; the aliases limit is 50."


@override_settings(GRAPHQL_MAX_ALIASES=3)
def test_aliases_in_a_fragment_count_once_per_spread(gql):
    document = (
        "{ a: person(id: 1) { ...F } b: person(id: 2) { ...F } } fragment F on Person { n: name }"
    )
    assert refusal(gql, document) == "The query uses 4 aliases; the aliases limit is 3."


def spread(times: int, fragment: str) -> str:
    return "{ person(id: 1) { " + " ".join([f"...{fragment}"] * times) + " } }"


def test_an_alias_in_a_fragment_spread_100_times_counts_100_times(gql):
    document = spread(100, "F") + " fragment F on Person { n: name }"
    assert refusal(gql, document) == "The query uses 100 aliases; the aliases limit is 50."
    assert gql.data(spread(50, "F") + " fragment F on Person { n: name }") == {
        "person": {"n": "Luke Skywalker"}
    }


def test_aliases_count_through_fragments_spread_inside_fragments(gql):
    # G spreads F twice, the operation spreads G 30 times: 60 aliases from one written alias.
    document = (
        spread(30, "G") + " fragment G on Person { ...F ...F } fragment F on Person { n: name }"
    )
    assert refusal(gql, document) == "The query uses 60 aliases; the aliases limit is 50."


NESTED_SPREADS = (
    "{ person(id: 1) { ...B ...B } }"  # 14 tokens
    " fragment B on Person { ...A ...A ...A }"  # 12 tokens
    " fragment A on Person { name }"  # 7 tokens
)


def test_tokens_count_each_spread_of_a_fragment_recursively(gql):
    # As sent: 33 tokens. Expanded: A is 7, B is 12 + 3 * 7 = 33, the operation 14 + 2 * 33 = 80.
    with override_settings(GRAPHQL_MAX_TOKENS=79):
        assert refusal(gql, NESTED_SPREADS) == (
            "The query has 80 tokens once its fragments are expanded; the tokens limit is 79."
        )
    with override_settings(GRAPHQL_MAX_TOKENS=80):
        assert gql.data(NESTED_SPREADS) == {"person": {"name": "Luke Skywalker"}}


def test_a_short_document_that_expands_past_the_token_limit_is_refused(gql):
    # 262 tokens as sent; the fragment's 52 tokens count once per spread: 5,410 tokens.
    document = spread(100, "F") + " fragment F on Person { " + "name " * 46 + "}"
    assert refusal(gql, document) == (
        "The query has 5410 tokens once its fragments are expanded; the tokens limit is 5000."
    )
    response = gql.post(document)
    # application/json: graphene-django's 400 for a request error, as the contract says.
    assert response.status_code == 400
    assert "tokens limit" in response.json()["errors"][0]["message"]


def test_comments_are_not_tokens(gql):
    # As the parser counts: the operation 14 tokens, the fragment 7 spread twice, 28 in all.
    document = "{ person(id: 1) { ...A ...A } } fragment A on Person { # the name\n name }"
    with override_settings(GRAPHQL_MAX_TOKENS=28):
        assert gql.data(document) == {"person": {"name": "Luke Skywalker"}}
    with override_settings(GRAPHQL_MAX_TOKENS=27):
        assert "has 28 tokens" in refusal(gql, document)


def test_a_document_over_the_token_limit_is_refused_by_the_parser(gql):
    document = "{ " + " ".join(["hello"] * 5001) + " }"
    message = refusal(gql, document, status=400)
    assert message == "Syntax Error: Document contains more than 5000 tokens. Parsing aborted."


@override_settings(GRAPHQL_MAX_TOKENS=10)
def test_the_token_limit_follows_its_setting(gql):
    assert "more than 10 tokens" in refusal(gql, "{ film(id: 1) { title director } }", status=400)
    assert gql.data("{ hello }")


def test_the_token_limit_applies_to_plain_json_clients_too(gql):
    response = gql.post("{ " + "hello " * 5001 + "}")
    # application/json: graphene-django's 400 for a request error, as the contract says.
    assert response.status_code == 400
    assert "data" not in response.json()
    assert "tokens" in response.json()["errors"][0]["message"]


@override_settings(GRAPHQL_TIME_BUDGET_MS=0)
def test_a_spent_time_budget_stops_execution_with_one_error(gql):
    for accept in (GRAPHQL_RESPONSE, "application/json"):
        response = gql.post("{ allPeople { name films { title } } }", accept=accept)
        assert response.status_code == 200
        body = response.json()
        assert body["data"] is None
        assert body["errors"] == [
            {
                "message": "The query ran out of its time budget of 0 ms.",
                "locations": [{"line": 1, "column": 3}],
                "path": ["allPeople"],
            }
        ]


def test_introspection_is_on_by_default(gql):
    assert gql.data(SCHEMA_NAME) == {"__schema": {"queryType": {"name": "Query"}}}
    assert gql.data(TYPE_NAME) == {"__type": {"name": "Film"}}


@override_settings(GRAPHQL_INTROSPECTION=False)
def test_introspection_can_be_switched_off(gql):
    assert refusal(gql, SCHEMA_NAME, single=False) == (
        "GraphQL introspection has been disabled, but the requested query contained the field"
        " '__schema'."
    )
    assert "introspection has been disabled" in refusal(gql, TYPE_NAME, single=False)


@override_settings(GRAPHQL_INTROSPECTION=False)
def test_typename_works_with_introspection_off(gql):
    assert gql.data("{ __typename film(id: 1) { __typename } }") == {
        "__typename": "Query",
        "film": {"__typename": "Film"},
    }


def test_cyclic_and_unknown_fragments_are_refused_by_the_standard_rules(gql):
    cyclic = """{ person(id: 1) { ...A } }
    fragment A on Person { friends { ...B } }
    fragment B on Person { friends { ...A } }"""
    assert "Cannot spread fragment 'A' within itself" in refusal(gql, cyclic)
    assert refusal(gql, "{ person(id: 1) { ...Nope } }") == "Unknown fragment 'Nope'."


def fragment_chain(count: int) -> str:
    chain = " ".join(f"fragment F{n} on Person {{ ...F{n + 1} }}" for n in range(count))
    return f"{{ person(id: 1) {{ ...F0 }} }} {chain} fragment F{count} on Person {{ name }}"


def test_a_long_chain_of_fragments_runs(gql):
    assert gql.data(fragment_chain(150)) == {"person": {"name": "Luke Skywalker"}}


def test_fragments_nested_past_what_validation_can_follow_are_refused_not_crashed(gql):
    response = gql.post(fragment_chain(600), accept=GRAPHQL_RESPONSE)
    assert response.status_code == 422, response.content
    assert response.json()["errors"] == [{"message": VALIDATION_WORK_REFUSAL}]


def test_a_document_of_4900_plain_fields_inside_the_token_limit_is_answered(gql):
    # Repeats of one plain field merge into one answer; graphql-core alone would compare every
    # pair of them (12 million comparisons) and refuse the document.
    document = "{ " + " ".join(["hello"] * 4900) + " }"
    assert gql.data(document) == {"hello": gql.data("{ hello }")["hello"]}
    people = "{ allPeople { " + " ".join(["name"] * 4880) + " } }"
    assert len(gql.data(people)["allPeople"]) == 82


def test_hundreds_of_one_field_with_selections_are_refused_naming_the_work_limit(gql):
    # Fields of one response name with selections must be compared pair by pair: 1,100 of them
    # (4,400 tokens) exceed graphql-core's comparison budget, which the refusal names.
    document = "{ " + " ".join(["allFilms { title }"] * 1100) + " }"
    assert refusal(gql, document) == VALIDATION_WORK_REFUSAL


def test_a_document_answered_before_is_checked_against_a_lowered_limit(gql):
    document = "{ person(id: 1) { friends { friends { name } } } }"
    assert gql.data(document)["person"]["friends"]
    assert gql.data(document)["person"]["friends"]  # the second time from the kept document

    with override_settings(GRAPHQL_MAX_DEPTH=3):
        assert "depth limit is 3" in refusal(gql, document)
    introspection = "{ __schema { queryType { name } } }"
    assert gql.data(introspection)["__schema"]["queryType"]["name"] == "Query"
    with override_settings(GRAPHQL_INTROSPECTION=False):
        assert "introspection" in refusal(gql, introspection, single=False)
    assert gql.data(document)["person"]["friends"]
