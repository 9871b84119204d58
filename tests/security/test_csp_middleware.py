"""config.csp.CSPMiddleware: django-csp's policy, built once for the responses that share it."""

from __future__ import annotations

import re

import pytest
from csp.utils import build_policy
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from config.csp import CSPMiddleware

pytestmark = pytest.mark.django_db

MACHINE_PATHS = ["/healthz", "/api/v1.2/", "/soap/calculator?wsdl"]


def directives(header: str) -> dict[str, set[str]]:
    parsed = {}
    for part in header.split(";"):
        name, *values = part.split()
        parsed[name] = set(values)
    return parsed


@pytest.mark.parametrize("path", MACHINE_PATHS)
def test_a_response_without_nonce_carries_the_policy_django_csp_builds(client, path):
    response = client.get(path, HTTP_ACCEPT="application/hal+json")
    assert response.status_code == 200
    assert directives(response["Content-Security-Policy"]) == directives(build_policy())
    # No nonce was asked for, so none is offered.
    assert "'nonce-" not in response["Content-Security-Policy"]


def test_a_changed_setting_changes_the_header_at_once(client):
    assert "'none'" in directives(client.get("/healthz")["Content-Security-Policy"])["object-src"]
    policy = {"DIRECTIVES": {"default-src": ["'none'"], "img-src": ["https://img.example"]}}
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        changed = directives(client.get("/healthz")["Content-Security-Policy"])
    assert changed == {"default-src": {"'none'"}, "img-src": {"https://img.example"}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=policy):
        response = client.get("/healthz")
    assert directives(response["Content-Security-Policy-Report-Only"])["default-src"] == {"'none'"}
    assert "Content-Security-Policy-Report-Only" not in client.get("/healthz")


def test_a_page_that_uses_its_nonce_gets_it_in_the_header(client):
    # Swagger UI's page has an inline script with the response's nonce.
    first, second = (client.get("/api/docs/", HTTP_ACCEPT="text/html") for _ in range(2))
    nonces = []
    for response in (first, second):
        nonce = re.search(rb'<script nonce="([^"]+)"', response.content).group(1).decode()
        assert f"'nonce-{nonce}'" in directives(response["Content-Security-Policy"])["script-src"]
        nonces.append(nonce)
    # Two pages, two nonces: nothing of one response is kept for the next.
    assert nonces[0] != nonces[1]


def _through_middleware(response: HttpResponse) -> HttpResponse:
    request = RequestFactory().get("/anything")
    middleware = CSPMiddleware(lambda request: response)
    return middleware(request)


def test_a_per_view_update_or_exemption_goes_through_django_csp():
    updated = HttpResponse()
    updated._csp_update = {"img-src": ["https://cdn.example"]}
    header = _through_middleware(updated)["Content-Security-Policy"]
    assert "https://cdn.example" in directives(header)["img-src"]

    exempt = HttpResponse()
    exempt._csp_exempt = True
    assert "Content-Security-Policy" not in _through_middleware(exempt)


def test_a_header_the_view_set_is_kept():
    own = HttpResponse()
    own["Content-Security-Policy"] = "default-src 'none'"
    assert _through_middleware(own)["Content-Security-Policy"] == "default-src 'none'"


def test_excluded_prefixes_still_exclude():
    policy = {"EXCLUDE_URL_PREFIXES": ["/anything"], "DIRECTIVES": {"default-src": ["'self'"]}}
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        assert "Content-Security-Policy" not in _through_middleware(HttpResponse())
    assert "Content-Security-Policy" in _through_middleware(HttpResponse())
