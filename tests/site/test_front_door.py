"""`/`: the page a newcomer opens first, linking every surface of the site."""

from __future__ import annotations

import pytest

from tests.site.conftest import BROWSER_ACCEPT, links_of

SURFACES = {
    "/api/v1.2/": "text/html",  # the browsable API
    "/api/docs/": "text/html",  # Swagger UI
    "/api/schema/": "application/vnd.oai.openapi",
    "/graphql": "text/html",  # GraphiQL
    "/soap/calculator": "text/html",  # the SOAP help page
    "/soap/calculator?wsdl": "text/xml",
    "/soap/calculator?wsdl2": "application/xml",
    "/docs/rels/": "text/html",
    "/admin/": "text/html",  # after the login redirect
    "/healthz": "application/json",
}


@pytest.fixture
def front_door(client, db):
    response = client.get("/", headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    return response


def test_the_front_door_is_an_html_page(front_door):
    assert front_door["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1>Blog service</h1>" in front_door.content.decode()


def test_the_front_door_links_every_surface(front_door):
    assert set(SURFACES) <= set(links_of(front_door).anchors)


@pytest.mark.parametrize(("path", "media_type"), SURFACES.items())
def test_every_surface_it_links_opens_in_a_browser(client, db, front_door, path, media_type):
    response = client.get(path, headers={"Accept": BROWSER_ACCEPT}, follow=True)

    assert response.status_code == 200, path
    assert response["Content-Type"].startswith(media_type), (path, response["Content-Type"])


def test_the_front_door_explains_each_link_in_a_line(front_door):
    html = front_door.content.decode()
    for words in ("browsable API", "Swagger UI", "OpenAPI", "GraphiQL", "WSDL 2.0", "editors"):
        assert words in html


def test_the_front_door_sets_no_cookie(front_door):
    assert not front_door.cookies


def test_the_front_door_answers_any_client_the_same_page(client, db):
    for accept in ("*/*", "application/json"):
        response = client.get("/", headers={"Accept": accept})
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/html")


def test_the_front_door_is_read_only(client, db):
    assert client.post("/").status_code == 405
    assert client.head("/").status_code == 200


def test_the_admins_view_site_link_leads_to_the_front_door(client, editor):
    client.force_login(editor)

    response = client.get("/admin/", headers={"Accept": BROWSER_ACCEPT})

    assert response.status_code == 200
    assert '<a href="/">View site</a>' in response.content.decode()
