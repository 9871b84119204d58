"""schemathesis drives every operation of /api/schema/ with generated requests.

No response may be a server error, and every response must be what the schema says: a
documented status, a documented media type, a body matching its schema, the documented headers.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from articles import services as article_services

pytestmark = [pytest.mark.fuzz]

DOCUMENTED_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"}

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


# The schema is read through the real WSGI application, as any client would read it.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@pytest.fixture
def something_to_find(db, blog, other_blog, article, alice):
    # Rows at the ids the generator tries most (1, 2 ...): two blogs, articles, a comment.
    article_services.article_create(blog=other_blog, title="Bob's note", content="hello")
    article_services.comment_create(article=article, author=alice, text="first!")


@schema.parametrize()
def test_every_operation_answers_within_its_schema_and_never_fails(
    case, something_to_find, alice, token_for
):
    case.headers = {**(case.headers or {}), "X-Access-Token": token_for(alice)}
    if case.method.upper() not in DOCUMENTED_METHODS:
        # schemathesis also tries methods the schema does not list (TRACE ...): the contract
        # answers those 405 (HTTP defines it, the resource lacks it) or 501 (not implemented).
        response = case.call()
        assert response.status_code in {405, 501}, (case.method, response.status_code)
        assert response.headers["content-type"][0].startswith("application/problem+json")
        return
    case.call_and_validate(checks=CHECKS)
