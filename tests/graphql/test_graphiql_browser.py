"""GraphiQL in a real headless Chromium, with every host but this site unreachable."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from tests.support.browser import headless_chromium

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("starwars")]

QUERY = "{ person(id: 1) { name friends { name } } }"
SET_QUERY = (
    "document.querySelector('.graphiql-query-editor .CodeMirror')"
    ".CodeMirror.setValue(arguments[0]);"
)


@pytest.fixture
def browser(tmp_path):
    yield from headless_chromium(tmp_path / "profile")


def requested_urls(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def test_graphiql_runs_a_query_with_every_other_host_blocked(browser, live_server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.wait import WebDriverWait

    browser.get(f"{live_server.url}/graphql")
    wait = WebDriverWait(browser, 30)
    wait.until(
        expected_conditions.presence_of_element_located(
            (By.CSS_SELECTOR, ".graphiql-query-editor .CodeMirror")
        )
    )
    browser.execute_script(SET_QUERY, QUERY)
    browser.find_element(By.CSS_SELECTOR, "button.graphiql-execute-button").click()
    response_pane = (By.CSS_SELECTOR, ".graphiql-response")
    wait.until(expected_conditions.text_to_be_present_in_element(response_pane, "Han Solo"))

    shown = browser.find_element(*response_pane).text
    assert '"name": "Luke Skywalker"' in shown
    for friend in ("C-3PO", "R2-D2", "Leia Organa", "Han Solo"):
        assert friend in shown

    urls = requested_urls(browser)
    origin = urlsplit(live_server.url).netloc
    assert any(url.endswith("/static/graphapi/vendor/graphiql.min.js") for url in urls)
    elsewhere = [
        url
        for url in urls
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != origin
    ]
    assert elsewhere == []
    severe = [
        entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
    ]
    assert severe == []


def test_another_host_is_unreachable_and_a_request_for_it_would_be_seen(browser, live_server):
    """The checks above are not vacuous: another host is refused twice (the page's CSP, then
    name resolution), and a request that went out for it shows in the log they read."""
    from selenium.common.exceptions import WebDriverException

    browser.get(f"{live_server.url}/graphql")
    browser.set_script_timeout(20)
    outcome = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('http://example.org/probe.js', {mode: 'no-cors'})"
        ".then(() => done('loaded'), (error) => done('failed: ' + error.name));"
    )
    assert outcome == "failed: TypeError"
    with pytest.raises(WebDriverException, match="ERR_NAME_NOT_RESOLVED"):
        browser.get("http://example.org/probe")
    assert "http://example.org/probe" in requested_urls(browser)
