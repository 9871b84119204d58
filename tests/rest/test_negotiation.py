"""Content negotiation and the version as a media-type parameter."""

from __future__ import annotations

import pytest

from tests.rest.conftest import API, body


@pytest.mark.parametrize("accept", [None, "*/*", "application/hal+json", "application/*"])
def test_hal_json_is_the_default(api, blog, accept):
    headers = {"Accept": accept} if accept else {}

    response = api.get(f"{API}/blogs/{blog.pk}", headers=headers)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/hal+json"
    assert "Accept" in response["Vary"]


def test_application_json_gets_the_same_body_as_json(api, blog):
    hal = api.get(f"{API}/blogs/{blog.pk}")
    plain = api.get(f"{API}/blogs/{blog.pk}", headers={"Accept": "application/json"})

    assert plain["Content-Type"] == "application/json"
    assert plain.content == hal.content
    assert "Accept" in plain["Vary"]


def test_a_browser_gets_the_browsable_api_without_forms_or_cookies(api, article):
    response = api.get(
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"},
    )

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "First post" in html and "doc:comments" in html
    assert "csrfmiddlewaretoken" not in html
    assert not response.cookies


def test_a_type_refused_with_q0_is_not_served_though_any_type_is_accepted(api, blog):
    response = api.get(
        f"{API}/blogs/{blog.pk}", headers={"Accept": "application/hal+json;q=0, */*"}
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    "accept",
    [
        "application/hal+json;q=0, application/json;q=0",
        "application/hal+json;q=0, application/json;q=0, text/*;q=0, application/*;q=0",
    ],
)
def test_when_q0_refuses_every_type_offered_the_answer_is_406(api, blog, accept):
    response = api.get(f"{API}/blogs/{blog.pk}", headers={"Accept": accept})

    assert response.status_code == 406
    assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize(
    ("accept", "served"),
    [
        ("application/hal+json;q=0.5, application/json", "application/json"),
        ("application/json;q=0.5, application/hal+json;q=0.9", "application/hal+json"),
        # On equal quality the type named more specifically wins over one reached by a range.
        ("application/*, application/json", "application/json"),
        ("text/html;q=0.4, */*;q=0.5", "application/hal+json"),
    ],
)
def test_the_type_ranked_highest_is_served(api, blog, accept, served):
    response = api.get(f"{API}/blogs/{blog.pk}", headers={"Accept": accept})

    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == served


@pytest.mark.parametrize("accept", ["application/xml", "text/plain", "image/png"])
def test_an_unsatisfiable_accept_is_406_problem(api, blog, accept):
    response = api.get(f"{API}/blogs/{blog.pk}", headers={"Accept": accept})

    assert response.status_code == 406
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["status"] == 406


def test_the_version_parameter_on_the_unversioned_prefix_is_the_same_resource(api, blog):
    canonical = api.get(f"{API}/blogs/{blog.pk}")
    by_media_type = api.get(
        f"/api/blogs/{blog.pk}", headers={"Accept": "application/hal+json; version=1.2"}
    )

    assert by_media_type.status_code == 200
    assert by_media_type.content == canonical.content
    # Links always use the canonical prefix.
    assert body(by_media_type)["_links"]["self"]["href"].endswith(f"/api/v1.2/blogs/{blog.pk}")


def test_the_unversioned_prefix_without_a_version_serves_the_current_one(api, blog):
    response = api.get(f"/api/blogs/{blog.pk}", headers={"Accept": "application/hal+json"})

    assert response.status_code == 200


@pytest.mark.parametrize("path", ["/api/blogs/{id}", "/api/v1.2/blogs/{id}"])
def test_an_unknown_version_in_the_accept_header_is_406(api, blog, path):
    response = api.get(
        path.format(id=blog.pk), headers={"Accept": "application/hal+json; version=2.0"}
    )

    assert response.status_code == 406
    assert response["Content-Type"] == "application/problem+json"


def test_an_unknown_version_in_the_path_is_404(api, blog):
    response = api.get(f"/api/v1.3/blogs/{blog.pk}")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"


def test_writes_work_on_the_unversioned_prefix_too(api, blog, alice_token):
    response = api.write(
        "POST",
        f"/api/blogs/{blog.pk}/articles",
        {"title": "via media type"},
        token=alice_token,
        headers={"Accept": "application/hal+json; version=1.2"},
    )

    assert response.status_code == 201
    assert "/api/v1.2/blogs/" in response["Location"]


def test_errors_are_problems_whatever_the_accept_header(api, db):
    response = api.get(f"{API}/blogs/424242", headers={"Accept": "text/html"})

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
