"""The site-wide behaviours hold on every surface, while the cookie-based middlewares (sessions,
CSRF, auth, messages) serve only the HTML pages: the machine surfaces never use cookies."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

SOAP12 = "http://www.w3.org/2003/05/soap-envelope"


def _soap_body() -> bytes:
    return (
        f'<soap:Envelope xmlns:soap="{SOAP12}"><soap:Body>'
        f'<AddValues xmlns="{settings.SOAP_NAMESPACE}"><FirstValue>2</FirstValue>'
        "<SecondValue>3</SecondValue></AddValues></soap:Body></soap:Envelope>"
    ).encode()


def _machine_requests(client: Client, blog_id: int) -> list:
    return [
        client.get(f"/api/v1.2/blogs/{blog_id}", headers={"Accept": "application/hal+json"}),
        client.post(
            "/graphql", json.dumps({"query": "{ hello }"}), content_type="application/json"
        ),
        client.post("/soap/calculator", _soap_body(), content_type="application/soap+xml"),
        client.get("/soap/calculator?FirstValue=2&SecondValue=3"),
        client.get("/healthz"),
    ]


@pytest.fixture
def logged_in(client, editor):
    """A browser that is logged in to the admin: it sends session and CSRF cookies."""
    client.force_login(editor)
    client.get("/admin/")  # its logout form sets the CSRF cookie
    return client


def test_machine_surfaces_keep_request_ids_and_security_headers(client, blog):
    responses = _machine_requests(client, blog.pk)

    assert [r.status_code for r in responses] == [200] * len(responses)
    for response in responses:
        assert len(response["X-Request-ID"]) == 32
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["X-Frame-Options"] == "DENY"
        assert response["Referrer-Policy"] == "same-origin"


def test_machine_surfaces_set_no_cookie_even_for_a_logged_in_browser(logged_in, blog):
    assert {"sessionid", "csrftoken"} <= set(logged_in.cookies)

    responses = _machine_requests(logged_in, blog.pk)

    assert [r.status_code for r in responses] == [200] * len(responses)
    for response in responses:
        assert not response.cookies
        assert "Cookie" not in response.get("Vary", "")


def test_a_session_cookie_is_no_credential_for_an_api_write(logged_in, blog):
    response = logged_in.post(
        f"/api/v1.2/blogs/{blog.pk}/articles",
        json.dumps({"title": "By cookie"}),
        content_type="application/json",
    )

    assert response.status_code == 401
    assert blog.articles.count() == 0


def test_the_admin_still_gets_sessions_and_csrf(db, editor):
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/admin/login/")
    assert page.status_code == 200
    assert "csrftoken" in page.cookies

    refused = browser.post("/admin/login/", {"username": "x", "password": "y"})
    assert refused.status_code == 403

    browser.force_login(editor)
    assert browser.get("/admin/").status_code == 200
