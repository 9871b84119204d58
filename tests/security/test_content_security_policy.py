"""Every HTML page carries a Content-Security-Policy that the page itself satisfies.

GraphiQL, Swagger UI, the browsable API, the relation docs, the SOAP help page and the admin are
read as a browser would: every script and stylesheet must come from this site, every inline
script must carry the response's nonce, and no inline event handler or javascript: URL may
appear (the policy allows neither).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from lxml import html

HTML_PAGES = {
    "graphiql": "/graphql",
    "swagger-ui": "/api/docs/",
    "browsable-api": "/api/v1.2/",
    "relation-docs": "/docs/rels/articles",
    "relation-index": "/docs/rels/",
    "problem-docs": "/docs/problems/gone",
    "front-door": "/",
    "soap-help": "/soap/calculator",
    "admin-login": "/admin/login/",
}
EXECUTABLE_SCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}


def parse_policy(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name.lower()] = values
    return directives


def is_same_origin(url: str) -> bool:
    parts = urlsplit(url)
    return (not parts.scheme and not parts.netloc) or parts.netloc == "testserver"


@pytest.fixture
def page(client, db, request):
    path = HTML_PAGES[request.param]
    response = client.get(path, HTTP_ACCEPT="text/html")
    assert response.status_code == 200, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    return response


@pytest.mark.parametrize("page", HTML_PAGES, indirect=True)
def test_the_policy_allows_only_this_site(page):
    policy = parse_policy(page["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    script_sources = policy["script-src"]
    assert "'unsafe-inline'" not in script_sources and "'unsafe-eval'" not in script_sources
    for directive, sources in policy.items():
        for source in sources:
            assert source.startswith(("'", "data:", "blob:")), (directive, source)


@pytest.mark.parametrize("page", HTML_PAGES, indirect=True)
def test_the_page_satisfies_its_policy(client, page):
    policy = parse_policy(page["Content-Security-Policy"])
    nonces = {s[len("'nonce-") : -1] for s in policy["script-src"] if s.startswith("'nonce-")}
    document = html.fromstring(page.content)
    for script in document.iter("script"):
        kind = (script.get("type") or "").lower()
        if script.get("src"):
            assert is_same_origin(script.get("src")), script.get("src")
        elif kind in EXECUTABLE_SCRIPT_TYPES and (script.text or "").strip():
            assert script.get("nonce") in nonces, f"inline script without the nonce: {kind!r}"
    for link in document.iter("link"):
        if "stylesheet" in (link.get("rel") or "") or link.get("rel") == "preload":
            assert is_same_origin(link.get("href")), link.get("href")
    for element in document.iter():
        if not isinstance(element.tag, str):
            continue
        for attribute, value in element.attrib.items():
            assert not attribute.lower().startswith("on"), (element.tag, attribute)
            if attribute in {"href", "src", "action"}:
                assert not value.strip().lower().startswith("javascript:"), value


@pytest.mark.parametrize("page", HTML_PAGES, indirect=True)
def test_the_scripts_and_styles_it_names_are_served_here(client, page):
    document = html.fromstring(page.content)
    urls = [s.get("src") for s in document.iter("script") if s.get("src")]
    urls += [
        link.get("href")
        for link in document.iter("link")
        if "stylesheet" in (link.get("rel") or "")
    ]
    for url in urls:
        path = urlsplit(url).path
        if path.startswith(static_prefix := "/" + settings.STATIC_URL.lstrip("/")):
            # Static files are served by whitenoise from the collected files in production;
            # here it is enough that one of the project's static files is that file.
            assert finders.find(path.removeprefix(static_prefix)), url
        else:
            response = client.get(urlsplit(url)._replace(scheme="", netloc="").geturl())
            assert response.status_code == 200, url
