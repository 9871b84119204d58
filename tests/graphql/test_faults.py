"""An unexpected fault in a resolver reaches the log, never the client."""

from __future__ import annotations

import logging

import pytest

from tests.graphql.conftest import GRAPHQL_RESPONSE
from tests.graphql.faulty_urls import SECRET

pytestmark = pytest.mark.urls("tests.graphql.faulty_urls")


@pytest.mark.parametrize("accept", [GRAPHQL_RESPONSE, "application/json"])
def test_a_failing_resolver_answers_a_generic_error_with_the_other_fields(gql, accept, caplog):
    with caplog.at_level(logging.ERROR, logger="graphapi.views"):
        response = gql.post("{ fine boom }", accept=accept)
    assert response.status_code == 200
    assert response.json() == {
        "data": {"fine": "still here", "boom": None},
        "errors": [
            {
                "message": "Internal server error.",
                "locations": [{"line": 1, "column": 8}],
                "path": ["boom"],
            }
        ],
    }
    assert SECRET not in response.content.decode()
    assert "RuntimeError" not in response.content.decode()
    assert any(SECRET in record.exc_text for record in caplog.records if record.exc_text)
