"""The Content-Security-Policy in a real headless Chromium: the pages work under it.

Chromium reports every blocked script, style, image or request as a console error naming the
Content Security Policy; a page that needs something the policy forbids shows it here.
"""

from __future__ import annotations

import pytest

from tests.support.browser import policy_violations, wait_for

pytestmark = [pytest.mark.browser]


def test_swagger_ui_renders_every_operation_under_the_policy(chromium, live_server, db):
    chromium.get(f"{live_server.url}/api/docs/")
    assert wait_for(chromium, "return document.querySelectorAll('.opblock').length > 0"), (
        "Swagger UI did not render the schema's operations"
    )
    assert policy_violations(chromium) == []


@pytest.mark.parametrize("path", ["/admin/login/", "/api/v1.2/", "/docs/rels/articles"])
def test_html_pages_load_without_a_policy_violation(chromium, live_server, db, path):
    chromium.get(f"{live_server.url}{path}")
    assert wait_for(chromium, "return document.readyState === 'complete'")
    assert chromium.execute_script("return document.body.innerText.length") > 0
    assert policy_violations(chromium) == []
