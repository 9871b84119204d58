"""Every error the site answers as an HTML page, to a browser: `Cache-Control` as the problem
document of the same status says it (core.cache_control.ERROR_CACHE_CONTROL), so that neither the
browser nor an edge keeps an error (issue 40, point 5; docs/site.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from core.problems import problem_response
from tests.site.conftest import BROWSER_ACCEPT


def problem_cache_control(status: int) -> str:
    """What the problem document of `status` carries."""
    request = RequestFactory().get("/api/v1.2/anything")
    return problem_response(request, status=status, detail="-")["Cache-Control"]


def assert_an_html_error_page(response, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    assert response["Cache-Control"] == problem_cache_control(status) == "no-store"


def test_the_not_found_page(client, db):
    response = client.get("/nowhere", headers={"Accept": BROWSER_ACCEPT})
    assert_an_html_error_page(response, 404)
    # Either answer of the negotiated 404 says the same.
    machine = client.get("/nowhere", headers={"Accept": "application/json"})
    assert machine["Cache-Control"] == response["Cache-Control"]


def test_the_bad_request_page(client, db, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    response = client.post(
        "/admin/login/",
        {f"field{i}": "x" for i in range(10)},
        headers={"Accept": BROWSER_ACCEPT},
    )
    assert_an_html_error_page(response, 400)


def test_the_forbidden_page(client, db):
    staff = User.objects.create_user("staff-without-rights", password="pw", is_staff=True)
    client.force_login(staff)
    response = client.get("/admin/drafts/draft/", headers={"Accept": BROWSER_ACCEPT})
    assert_an_html_error_page(response, 403)


def test_the_csrf_failure_page(db):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(
        "/admin/login/",
        {"username": "alice", "password": "guess"},
        headers={"Accept": BROWSER_ACCEPT},
    )
    assert_an_html_error_page(response, 403)
    assert "CSRF" in response.content.decode()


@pytest.mark.urls("tests.site.faulty_urls")
def test_the_server_error_page(db):
    browser = Client(raise_request_exception=False)
    response = browser.get("/broken-page", headers={"Accept": BROWSER_ACCEPT})
    assert_an_html_error_page(response, 500)
