"""The newcomer's first hour, walked in headless Chromium on fresh demo data with every other host
unresolvable: the front door, the browsable API through a templated link, Swagger UI's "Try it
out", GraphiQL running a query, the SOAP page and the admin login. Each step leaves a screenshot
in SCREENSHOTS_DIR (default `artifacts/screenshots/`, git-ignored; `.ci/run` keeps them there)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support.browser import policy_violations, wait_for

pytestmark = [pytest.mark.browser]

SCREENSHOTS = Path(
    os.environ.get("SCREENSHOTS_DIR")
    or Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
)
GRAPHQL_QUERY = "{ person(id: 1) { name friends { name } } }"


@pytest.fixture
def demo(transactional_db) -> None:
    call_command("seed_demo", stdout=io.StringIO())
    call_command("load_starwars", stdout=io.StringIO())


class Walk:
    def __init__(self, chromium, origin: str) -> None:
        self.chromium, self.origin, self.step = chromium, origin, 0
        chromium.set_window_size(1280, 1024)

    def until(self, script: str, what: str) -> None:
        if not wait_for(self.chromium, script, timeout=30):
            self.snap("failed")
            shown = self.chromium.execute_script(
                "const r = document.querySelector('.responses-wrapper');"
                "return (r || document.body).innerText.slice(0, 1500)"
            )
            pytest.fail(f"{what}; the page shows: {shown}")

    def css(self, selector: str):
        return self.chromium.find_element("css selector", selector)

    def snap(self, name: str) -> None:
        self.step += 1
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        assert self.chromium.save_screenshot(str(SCREENSHOTS / f"{self.step:02d}-{name}.png"))

    def front_door(self) -> None:
        self.chromium.get(f"{self.origin}/")
        self.until("return document.readyState === 'complete'", "the front door did not load")

    def follow(self, href: str) -> None:
        self.css(f"a[href='{href}']").click()
        self.until("return document.readyState === 'complete'", f"{href} did not load")


def test_a_newcomer_walks_every_surface_from_the_front_door(chromium, live_server, demo):
    walk = Walk(chromium, live_server.url)

    walk.front_door()
    assert chromium.find_element("css selector", "h1").text == "Blog service"
    walk.snap("front-door")

    # The browsable API, through the API root's templated link to the blogs.
    walk.follow("/api/v1.2/")
    walk.until("return document.querySelector('.hal-links') !== null", "no links panel")
    walk.snap("api-root")
    form = walk.css("form.hal-template[data-template*='blogs{?']")
    form.find_element("css selector", "input[name='pageSize']").send_keys("2")
    form.find_element("css selector", "button[type='submit']").click()
    walk.until("return location.search === '?pageSize=2'", "the templated link did not expand")
    walk.until(
        "return document.body.innerText.includes('\"pageSize\": 2')", "no page of two blogs shown"
    )
    walk.snap("api-blogs-page")

    # Swagger UI: "Try it out" on the first read, then Execute; the answer comes from this site.
    walk.front_door()
    walk.follow("/api/docs/")
    walk.until("return document.querySelectorAll('.opblock-get').length > 0", "no operations")
    walk.css(".opblock-get .opblock-summary").click()
    walk.until("return document.querySelector('.try-out__btn') !== null", "no Try it out")
    walk.css(".try-out__btn").click()
    walk.until("return document.querySelector('.execute') !== null", "no Execute button")
    walk.css(".execute").click()
    walk.until(
        "const cell = document.querySelector('.live-responses-table tbody .response-col_status');"
        "return cell !== null && cell.innerText.trim() === '200'",
        "Swagger's request did not answer 200",
    )
    walk.snap("swagger-try-it-out")

    # GraphiQL runs a query.
    walk.front_door()
    walk.follow("/graphql")
    walk.until(
        "return document.querySelector('.graphiql-query-editor .CodeMirror') !== null",
        "GraphiQL did not load",
    )
    chromium.execute_script(
        "document.querySelector('.graphiql-query-editor .CodeMirror')"
        ".CodeMirror.setValue(arguments[0]);",
        GRAPHQL_QUERY,
    )
    walk.css("button.graphiql-execute-button").click()
    walk.until(
        "return document.querySelector('.graphiql-response').innerText.includes('Han Solo')",
        "GraphiQL's query did not answer",
    )
    walk.snap("graphiql")

    # The SOAP page.
    walk.front_door()
    walk.follow("/soap/calculator")
    assert "AddValues" in chromium.find_element("css selector", "body").text
    walk.snap("soap")

    # The admin: the demo editor logs in, and "View site" leads back to the front door.
    walk.front_door()
    walk.follow("/admin/")
    walk.until("return document.querySelector('#id_username') !== null", "no login form")
    walk.css("#id_username").send_keys("editor")
    walk.css("#id_password").send_keys("editor")
    walk.css("input[type='submit']").click()
    walk.until("return document.body.innerText.includes('Site administration')", "the login failed")
    walk.snap("admin")
    walk.follow("/")
    assert chromium.find_element("css selector", "h1").text == "Blog service"

    assert policy_violations(chromium) == []
    assert sorted(path.name for path in SCREENSHOTS.glob("*.png")) >= [
        f"{number:02d}-{name}.png"
        for number, name in enumerate(
            ["front-door", "api-root", "api-blogs-page", "swagger-try-it-out"], start=1
        )
    ]
