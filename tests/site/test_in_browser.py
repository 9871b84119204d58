"""The newcomer's pages in a real headless Chromium: the front door and the 404 page render
with the site's stylesheet under the Content-Security-Policy, and the SOAP documents that a
browser used to save as a file called `calculator` open as documents."""

from __future__ import annotations

import pytest

from tests.support.browser import policy_violations, wait_for

pytestmark = [pytest.mark.browser]


def open_page(chromium, url: str) -> None:
    chromium.get(url)
    assert wait_for(chromium, "return document.readyState === 'complete'")


@pytest.mark.parametrize("path", ["/", "/docs/rels/", "/nowhere"])
def test_the_sites_pages_render_with_their_stylesheet_under_the_policy(
    chromium, live_server, db, path
):
    open_page(chromium, f"{live_server.url}{path}")

    # 52rem from static/site/site.css; without the stylesheet the body is as wide as the window.
    assert chromium.execute_script("return getComputedStyle(document.body).maxWidth") == "832px"
    assert chromium.execute_script("return document.querySelector('a[href=\"/\"], h1') !== null")
    assert policy_violations(chromium) == []


def test_the_404_page_leads_to_the_front_door(chromium, live_server, db):
    open_page(chromium, f"{live_server.url}/nowhere")
    chromium.find_element("css selector", "a[href='/']").click()

    assert wait_for(chromium, "return document.querySelector('h1').innerText === 'Blog service'")


@pytest.mark.parametrize(
    ("query", "root"),
    [("wsdl2", "<description"), ("FirstValue=2&SecondValue=3", "<env:Envelope")],
)
def test_soap_documents_open_in_the_browser(chromium, live_server, db, query, root):
    open_page(chromium, f"{live_server.url}/")
    open_page(chromium, f"{live_server.url}/soap/calculator?{query}")

    # A download would leave the front door in the window; Chromium shows XML as a tree.
    assert chromium.execute_script("return location.search") == f"?{query}"
    assert chromium.execute_script("return document.contentType") == "application/xml"
    assert root in chromium.execute_script("return document.body.innerText")
