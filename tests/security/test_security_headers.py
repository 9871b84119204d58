"""Security headers on every kind of response; HSTS only on secure requests."""

from __future__ import annotations

import pytest
from django.test import Client

PAGES = {
    "health": ("/healthz", "application/json"),
    "api-root": ("/api/v1.2/", "application/hal+json"),
    "admin-login": ("/admin/login/", "text/html"),
    "not-found": ("/no/such/page", "text/html"),
}


@pytest.mark.parametrize("page", PAGES)
def test_every_response_forbids_sniffing_and_limits_the_referrer(client, db, page):
    path, accept = PAGES[page]
    response = client.get(path, HTTP_ACCEPT=accept)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert "Strict-Transport-Security" not in response  # plain HTTP: RFC 6797 section 7.2


def test_html_pages_may_not_be_framed(client, db):
    assert client.get("/admin/login/")["X-Frame-Options"] == "DENY"


def test_hsts_is_sent_on_secure_requests_when_configured(settings, db):
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    client = Client()
    secure = client.get("/healthz", secure=True)
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert "Strict-Transport-Security" not in client.get("/healthz")


def test_behind_a_trusted_proxy_hsts_follows_x_forwarded_proto(settings, db):
    settings.SECURE_HSTS_SECONDS = 600
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()
    response = client.get("/healthz", HTTP_X_FORWARDED_PROTO="https")
    assert response["Strict-Transport-Security"] == "max-age=600"


def test_the_ssl_redirect_spares_the_health_probe(settings, db):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/admin/login/").status_code == 301
    assert client.get("/admin/login/")["Location"].startswith("https://")
    assert client.get("/healthz").status_code == 200


def test_session_and_csrf_cookies_are_http_only_where_it_matters(client, db, editor):
    client.post("/admin/login/", {"username": "editor", "password": "editor-password"})
    assert client.cookies["sessionid"]["httponly"]
