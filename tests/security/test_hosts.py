"""Absolute links and the WSDL address are built from the host the request names: normalised
(lower case, the default port left out), and only with a port that ALLOWED_PORTS names."""

from __future__ import annotations

import json

import pytest

API = "/api/v1.2"


def self_href(client, host: str) -> tuple[int, str | None]:
    response = client.get(f"{API}/", HTTP_HOST=host)
    if response.status_code != 200:
        return response.status_code, None
    return 200, json.loads(response.content)["_links"]["self"]["href"]


def wsdl_address(client, host: str) -> tuple[int, bytes]:
    response = client.get("/soap/calculator?wsdl", HTTP_HOST=host)
    return response.status_code, response.content


@pytest.mark.parametrize(
    ("host", "href"),
    [
        ("LOCALHOST:8000", "http://localhost:8000/api/v1.2/"),
        ("127.0.0.1:80", "http://127.0.0.1/api/v1.2/"),
        ("127.0.0.1:08000", "http://127.0.0.1:8000/api/v1.2/"),
        ("LocalHost", "http://localhost/api/v1.2/"),
    ],
)
def test_links_carry_the_normalised_host(client, db, settings, host, href):
    settings.ALLOWED_PORTS = ["8000"]
    assert self_href(client, host) == (200, href)
    status, wsdl = wsdl_address(client, host)
    assert status == 200
    assert f'location="{href.removesuffix("api/v1.2/")}soap/calculator"'.encode() in wsdl


@pytest.mark.parametrize(
    "host", ["127.0.0.1:99999", "127.0.0.1:8001", "127.0.0.1:0", "localhost:65536"]
)
def test_a_port_the_setting_does_not_name_is_400(client, db, settings, host):
    settings.ALLOWED_PORTS = ["8000"]
    response = client.get(f"{API}/", HTTP_HOST=host)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert "port" in json.loads(response.content)["detail"]
    assert wsdl_address(client, host)[0] == 400


def test_behind_a_trusted_proxy_the_forwarded_host_is_normalised(client, db, settings):
    settings.ALLOWED_PORTS = ["8000"]
    settings.USE_X_FORWARDED_HOST = True
    response = client.get(
        f"{API}/", HTTP_HOST="127.0.0.1:9999", HTTP_X_FORWARDED_HOST="Blog.Localhost:80"
    )
    assert response.status_code == 400  # blog.localhost is not an allowed host
    response = client.get(f"{API}/", HTTP_X_FORWARDED_HOST="LOCALHOST:8000")
    assert (
        json.loads(response.content)["_links"]["self"]["href"] == "http://localhost:8000/api/v1.2/"
    )


# A refused Host is the client's spelling: nothing in the answer may repeat it, not even the
# problem's `type`, which is built on the configured origin instead (PUBLIC_URL; the test
# settings' is http://testserver). docs/decisions/hosts-and-ports.md
REFUSED_HOSTS = ["127.0.0.1:8001", "localhost:65535", "evil.example", "evil.example:8000"]


@pytest.mark.parametrize("host", REFUSED_HOSTS)
@pytest.mark.parametrize("path", [f"{API}/", "/", "/docs/rels/", "/soap/calculator?wsdl"])
def test_a_refused_host_is_never_echoed_in_the_problem(client, db, settings, host, path):
    settings.ALLOWED_PORTS = ["8000"]
    settings.PUBLIC_URL = "https://blog.example.org"
    response = client.get(path, HTTP_HOST=host)
    assert response.status_code == 400
    if path.startswith("/soap/"):
        # SOAP answers in its own language (core.surfaces): a Sender fault, with no URL at all.
        assert b"Sender" in response.content and b"Host header" in response.content
    else:
        problem = json.loads(response.content)
        assert problem["type"] == "https://blog.example.org/docs/problems/bad-request"
    refused = host[host.index(":") :] if host.startswith(("127.", "localhost")) else "evil"
    assert refused.encode() not in response.content
    assert not any(refused in value for value in response.headers.values())


def test_a_refused_forwarded_host_is_never_echoed_in_the_problem(client, db, settings):
    settings.ALLOWED_PORTS = ["8000"]
    settings.USE_X_FORWARDED_HOST = True
    settings.PUBLIC_URL = "https://blog.example.org"
    for forwarded in ("localhost:9999", "evil.example"):
        response = client.get(f"{API}/", HTTP_X_FORWARDED_HOST=forwarded)
        assert response.status_code == 400
        problem = json.loads(response.content)
        assert problem["type"] == "https://blog.example.org/docs/problems/bad-request"
        assert forwarded.encode() not in response.content


def test_a_served_host_still_gets_problem_types_on_its_own_origin(client, db, settings):
    settings.ALLOWED_PORTS = ["8000"]
    settings.PUBLIC_URL = "https://blog.example.org"
    response = client.get(f"{API}/blogs/999999", HTTP_HOST="localhost:8000")
    assert response.status_code == 404
    assert json.loads(response.content)["type"] == "http://localhost:8000/docs/problems/not-found"
