"""The pages people type without their trailing slash redirect to it; every other route keeps
the exact path it has, with or without a slash."""

from __future__ import annotations

import pytest

from tests.site.conftest import BROWSER_ACCEPT

TYPED_WITHOUT_SLASH = ["/admin", "/api/docs", "/api/schema", "/api/v1.2", "/docs/rels"]


@pytest.mark.parametrize("path", TYPED_WITHOUT_SLASH)
@pytest.mark.parametrize("accept", [BROWSER_ACCEPT, "application/hal+json", None])
def test_a_get_without_the_slash_is_a_permanent_redirect_to_it(client, db, path, accept):
    headers = {"Accept": accept} if accept else {}

    response = client.get(path, headers=headers)

    assert response.status_code == 301
    assert response["Location"] == f"{path}/"
    # The slash form is a route (what it answers this Accept is its own negotiation).
    assert client.get(response["Location"], headers=headers).status_code != 404


@pytest.mark.parametrize("path", TYPED_WITHOUT_SLASH)
def test_the_redirect_keeps_the_query_string(client, db, path):
    response = client.get(f"{path}?pageSize=5&next=%2Fadmin%2F")

    assert response.status_code == 301
    assert response["Location"] == f"{path}/?pageSize=5&next=%2Fadmin%2F"


def test_head_is_redirected_as_get(client, db):
    response = client.head("/api/v1.2")

    assert response.status_code == 301
    assert response["Location"] == "/api/v1.2/"


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_other_methods_get_a_308_that_keeps_the_method(client, db, method):
    response = getattr(client, method)("/api/v1.2?x=1")

    assert response.status_code == 308
    assert response["Location"] == "/api/v1.2/?x=1"


@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/graphql", BROWSER_ACCEPT),
        ("/healthz", "application/json"),
        ("/soap/calculator", BROWSER_ACCEPT),
        ("/api/v1.2/blogs", "application/hal+json"),
        ("/api/v1.2/blogs/{blog}", "application/hal+json"),
        ("/api/v1.2/blogs/{blog}/articles", "application/hal+json"),
        ("/api/blogs", "application/hal+json; version=1.2"),
        ("/docs/rels/articles", BROWSER_ACCEPT),
    ],
)
def test_routes_without_a_slash_answer_where_they_are(client, blog, path, accept):
    response = client.get(path.format(blog=blog.pk), headers={"Accept": accept})

    assert response.status_code == 200, path


@pytest.mark.parametrize(
    "path", ["/graphql/", "/healthz/", "/api/v1.2/blogs/", "/soap/calculator/"]
)
def test_routes_without_a_slash_have_no_slash_form(client, db, path):
    response = client.get(path, headers={"Accept": "application/json"})

    assert response.status_code == 404
    assert "Location" not in response
