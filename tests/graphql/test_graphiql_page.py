"""The GraphiQL page that a browser gets at /graphql, and the files it is built from."""

from __future__ import annotations

import re

from django.contrib.staticfiles import finders

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_browser_gets_graphiql(client):
    response = client.get("/graphql", headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert 'id="graphiql" data-endpoint="/graphql"' in response.content.decode()


def test_every_script_style_and_icon_comes_from_this_site(client):
    html = client.get("/graphql", headers={"Accept": BROWSER_ACCEPT}).content.decode()
    references = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert len(references) == 7
    for reference in references:
        if reference == "data:,":
            continue
        assert reference.startswith("/static/graphapi/"), reference
        assert finders.find(reference.removeprefix("/static/")), reference


def test_the_page_forbids_other_hosts_to_the_browser(client):
    response = client.get("/graphql", headers={"Accept": BROWSER_ACCEPT})
    # The site-wide policy (django-csp): this site, and inline scripts only with the nonce.
    directives = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
    )
    assert directives["default-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    script_sources = directives["script-src"].split()
    assert script_sources[0] == "'self'"
    assert all(source.startswith("'nonce-") for source in script_sources[1:])


def test_raw_asks_for_json_even_from_a_browser(client):
    response = client.get(
        "/graphql", {"query": "{ hello }", "raw": ""}, headers={"Accept": BROWSER_ACCEPT}
    )
    assert response["Content-Type"] == "application/json"
    assert response.json()["data"]["hello"]


def test_a_post_from_a_browser_is_answered_in_json(client):
    response = client.post(
        "/graphql",
        {"query": "{ hello }"},
        content_type="application/json",
        headers={"Accept": BROWSER_ACCEPT},
    )
    assert response["Content-Type"] == "application/json"
    assert response.json()["data"]["hello"]


def test_the_vendored_assets_carry_their_licences():
    for name in ("graphiql", "react", "react-dom"):
        assert finders.find(f"graphapi/vendor/licenses/{name}-LICENSE.txt"), name
