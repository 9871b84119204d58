"""A 404 outside the API: an HTML page for a person's browser, the problem for everyone else.
Under /api/ it stays the problem whatever the Accept (docs/decisions/not-found-for-people.md)."""

from __future__ import annotations

import json
import runpy

import pytest
from django.urls import Resolver404, resolve

from config.settings import base
from tests.site.conftest import BROWSER_ACCEPT, links_of

MACHINE_ACCEPTS = [
    "application/json",
    "application/hal+json",
    "application/problem+json",
    "*/*",
    None,
]


def get(client, path: str, accept: str | None):
    return client.get(path, headers={"Accept": accept} if accept else {})


def middleware_when(monkeypatch, debug: str) -> list[str]:
    """MIDDLEWARE as config.settings.base builds it with DEBUG=`debug` in the environment."""
    monkeypatch.setenv("DEBUG", debug)
    return runpy.run_path(base.__file__)["MIDDLEWARE"]


@pytest.fixture
def make_run(settings, monkeypatch):
    """The settings `make run` serves with: DEBUG on, and the middleware it adds."""
    settings.MIDDLEWARE = middleware_when(monkeypatch, "true")
    settings.DEBUG = True


@pytest.mark.parametrize("path", ["/nowhere", "/docs/rels/nonsense", "/docs/problems/nonsense"])
def test_a_browser_gets_an_html_page_linking_the_front_door(client, db, path):
    response = get(client, path, BROWSER_ACCEPT)

    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "/" in links_of(response).anchors
    assert path in response.content.decode()
    assert "Accept" in response["Vary"]


def test_the_html_page_escapes_the_path_it_names(client, db):
    response = get(client, "/%3Cscript%3Ealert(1)%3C/script%3E", BROWSER_ACCEPT)

    assert response.status_code == 404
    assert "<script>" not in response.content.decode()
    assert "&lt;script&gt;" in response.content.decode()


@pytest.mark.parametrize("accept", MACHINE_ACCEPTS)
def test_any_other_client_gets_the_problem_outside_the_api(client, db, accept):
    response = get(client, "/nowhere", accept)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    problem = json.loads(response.content)
    assert problem["status"] == 404
    assert problem["instance"] == "/nowhere"
    assert problem["type"] == "http://testserver/docs/problems/not-found"
    assert "Accept" in response["Vary"]


def test_a_client_that_ranks_html_below_json_gets_the_problem(client, db):
    response = get(client, "/nowhere", "application/problem+json, text/html;q=0.5")

    assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("accept", [BROWSER_ACCEPT, *MACHINE_ACCEPTS])
@pytest.mark.parametrize("path", ["/api/nowhere", "/api/v1.2/no/such/route", "/api/v9/blogs"])
def test_under_the_api_every_client_gets_the_problem(client, db, path, accept):
    response = get(client, path, accept)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert json.loads(response.content) == {
        "type": "http://testserver/docs/problems/not-found",
        "title": "Not found",
        "status": 404,
        "detail": "No such resource.",
        "instance": path,
    }


def test_the_html_page_uses_the_sites_stylesheet_and_policy(client, db):
    response = get(client, "/nowhere", BROWSER_ACCEPT)

    assert ("stylesheet", "/static/site/site.css") in links_of(response).links
    assert "style-src 'self'" in response["Content-Security-Policy"]
    assert "<style" not in response.content.decode()


@pytest.mark.parametrize("path", ["/nowhere", "/docs/rels/nonsense"])
def test_make_runs_debug_mode_answers_as_production_does(client, db, make_run, path):
    """With DEBUG on (make run) Django would send its technical 404 page listing the URL
    patterns; the newcomer gets the same page, and a program the same problem, as production."""
    page = get(client, path, BROWSER_ACCEPT)
    assert page.status_code == 404
    assert "/" in links_of(page).anchors
    assert b"URLconf" not in page.content and b"technical" not in page.content.lower()

    problem = get(client, path, "application/json")
    assert problem.status_code == 404
    assert problem["Content-Type"] == "application/problem+json"
    assert json.loads(problem.content)["status"] == 404


def test_what_only_make_run_needs_exists_only_with_debug_on(monkeypatch):
    """Production answers a 404 through handler404: no catch-all route, no 404 middleware."""
    development = "core.middleware.DebugNotFoundMiddleware"

    assert development in middleware_when(monkeypatch, "true")
    assert development not in middleware_when(monkeypatch, "false")
    with pytest.raises(Resolver404):
        resolve("/nowhere")


def test_a_post_to_an_unknown_path_is_a_404_not_a_csrf_refusal(client, db):
    response = client.post("/nowhere", data=b"{}", content_type="application/json")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
