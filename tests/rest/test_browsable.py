"""The browsable API (HTML for a browser's Accept) reads HAL: templated links are forms, curies
link to their documentation, errors are pages, writes send X-Access-Token, and a JSON view."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from django.contrib.staticfiles import finders
from lxml import html

from articles import services
from articles.models import Article
from tests.rest.conftest import API, body
from tests.support.browser import wait_for

# What Firefox and Safari send when they open a page (Chromium adds image types).
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
ORIGIN = "http://testserver"


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def page(api, path: str, *, status: int = 200, method: str = "GET", **kwargs):
    """The browsable page answered to a browser, parsed."""
    headers = {"Accept": BROWSER, **kwargs.pop("headers", {})}
    if method == "GET":
        response = api.get(path, headers=headers)
    else:
        response = api.write(method, path, kwargs.pop("body", None), headers=headers, **kwargs)
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert not response.cookies
    return response, html.fromstring(response.content)


def test_a_templated_link_is_a_form_for_its_variables(api, article):
    _, document = page(api, article_url(article))

    forms = document.xpath("//form[contains(@class, 'hal-template')]")
    comments = f"{ORIGIN}{article_url(article)}/comments"
    revisions = f"{ORIGIN}{article_url(article)}/revisions"
    assert [form.get("action") for form in forms] == [comments, revisions]
    for form, collection in zip(forms, (comments, revisions), strict=True):
        assert form.get("method") == "get"
        assert form.get("data-template") == collection + "{?pageIndex,pageSize}"
        assert [i.get("name") for i in form.xpath(".//input")] == ["pageIndex", "pageSize"]
        # The form's own submission (no script) is a request of the collection with the
        # variables.
        assert api.get(collection, {"pageIndex": "1", "pageSize": "5"}).status_code == 200


def test_curie_prefixed_relations_link_to_their_documentation(api, article):
    _, document = page(api, article_url(article))

    docs = {a.text: a.get("href") for a in document.xpath("//a[contains(@class, 'hal-rel')]")}
    assert docs == {
        "doc:blog": f"{ORIGIN}/docs/rels/blog",
        "doc:comments": f"{ORIGIN}/docs/rels/comments",
        "doc:revisions": f"{ORIGIN}/docs/rels/revisions",
    }
    for href in docs.values():
        assert api.get(href).status_code == 200


def test_plain_hrefs_are_links_and_no_link_opens_a_raw_template(api, article):
    _, document = page(api, f"{API}/blogs/{article.blog_id}/articles")

    hrefs = [a.get("href") for a in document.iter("a")]
    assert f"{ORIGIN}{article_url(article)}" in hrefs
    assert f"{ORIGIN}{API}/blogs/{article.blog_id}/articles?pageIndex=1&pageSize=10" in hrefs
    assert not [href for href in hrefs if "{" in href or "%7B" in href.upper()]
    # In the JSON, a templated href with only query variables opens the collection's defaults.
    shown = document.xpath("//div[@class='response-info']//a")
    comments = f"{ORIGIN}{article_url(article)}/comments"
    assert any(
        a.get("href") == comments and a.text == comments + "{?pageIndex,pageSize}" for a in shown
    )


def test_a_path_variable_is_a_form_input_too(api, db):
    _, document = page(api, f"{API}/")

    templates = {
        form.get("data-template"): [i.get("name") for i in form.xpath(".//input")]
        for form in document.xpath("//form[contains(@class, 'hal-template')]")
    }
    assert templates[f"{ORIGIN}{API}/blogs/{{id}}"] == ["id"]
    assert templates[f"{ORIGIN}{API}/blogs{{?pageIndex,pageSize}}"] == ["pageIndex", "pageSize"]


def test_write_forms_have_a_token_field_and_no_csrf_token(api, article):
    response, document = page(api, article_url(article))

    (token,) = document.xpath("//input[@name='X-Access-Token']")
    assert token.get("type") == "password"
    (if_match,) = document.xpath("//input[@name='If-Match']")
    assert if_match.get("value") == response["ETag"]
    assert document.xpath("//form[@data-method='PUT']//textarea[@data-override='content']")
    assert document.xpath("//form[@data-method='DELETE']")
    assert b"csrfmiddlewaretoken" not in response.content


def test_the_put_form_starts_from_the_current_fields(api, article):
    _, document = page(api, article_url(article))

    (textarea,) = document.xpath("//form[@data-method='PUT']//textarea")
    article.refresh_from_db()
    # Only what a PUT takes (its input serializer): issue 29's slug, tags and contentFormat,
    # not what the server computes (publishedAt, contentHtml, excerpt).
    assert json.loads(textarea.text) == {
        "title": "First post",
        "content": "Hello",
        "slug": "first-post",
        "tags": [],
        "contentFormat": "text",
    }


def test_a_collection_offers_post_and_a_read_only_resource_no_write_form(api, article):
    _, articles = page(api, f"{API}/blogs/{article.blog_id}/articles")
    _, blog = page(api, f"{API}/blogs/{article.blog_id}")

    assert articles.xpath("//form[@method='POST']//textarea")
    assert articles.xpath("//input[@name='X-Access-Token']")
    assert not blog.xpath("//textarea") and not blog.xpath("//input[@name='X-Access-Token']")


def test_a_put_as_the_form_sends_it_replaces_the_article(api, article, alice_token):
    response, document = page(api, article_url(article))
    if_match = document.xpath("//input[@name='If-Match']")[0].get("value")

    replaced, after = page(
        api,
        article_url(article),
        method="PUT",
        body={"title": "From the page", "content": "Typed"},
        headers={"X-Access-Token": alice_token, "If-Match": if_match},
    )

    article.refresh_from_db()
    assert (article.title, article.content) == ("From the page", "Typed")
    assert replaced["ETag"] != response["ETag"]
    assert after.xpath("//input[@name='If-Match']")[0].get("value") == replaced["ETag"]
    # Without If-Match the PUT is unconditional.
    page(
        api,
        article_url(article),
        method="PUT",
        body={"title": "Again"},
        headers={"X-Access-Token": alice_token},
    )
    assert Article.objects.get(pk=article.pk).title == "Again"


def test_the_json_view_fetches_the_same_url_by_accept(api, article):
    response, document = page(api, article_url(article))

    (button,) = document.xpath("//a[@id='json-view-button']")
    assert button.get("data-url") == article_url(article)
    curl = document.xpath("//pre[@class='hal-curl']")[0].text
    assert curl == (f"curl -si -H 'Accept: application/hal+json' '{ORIGIN}{article_url(article)}'")
    json_view = api.get(button.get("data-url"), headers={"Accept": "application/hal+json"})
    assert json_view["Content-Type"] == "application/hal+json"
    assert body(json_view)["title"] == "First post"
    assert json_view["ETag"] != response["ETag"]  # each variant has its own tag


def hal_problem(document) -> tuple[str, str]:
    (problem,) = document.xpath("//div[contains(@class, 'hal-problem')]")
    return problem.xpath("./h2")[0].text, problem.xpath("./p")[0].text


@pytest.mark.parametrize(
    ("path", "status", "title"),
    [
        ("/blogs/424242", 404, "404 Not found"),
        ("/blogs?pageIndex=0", 400, "400 Bad request"),
        ("/blogs/{blog}/articles?pageSize=1000", 400, "400 Bad request"),
    ],
)
def test_a_read_error_is_a_page_with_its_status(api, blog, path, status, title):
    url = API + path.format(blog=blog.pk)

    response, document = page(api, url, status=status)

    assert hal_problem(document)[0] == title
    assert response["Cache-Control"] == "no-store"
    assert (
        "application/problem+json"
        in document.xpath("//div[@class='response-info']")[0].text_content()
    )
    # API clients, and a client that names text/html alone, still get the problem document.
    for accept in ("application/hal+json", "text/html", "text/html, application/xhtml+xml;q=0"):
        problem = api.get(url, headers={"Accept": accept})
        assert problem.status_code == status
        assert problem["Content-Type"] == "application/problem+json"


def test_a_deleted_article_is_a_410_page(api, article):
    services.article_delete(article=article)

    _, document = page(api, article_url(article), status=410)

    assert hal_problem(document) == ("410 Gone", "The article was deleted.")


def test_write_errors_are_pages_with_their_headers(
    api, article, alice_token, bob, token_for, archived_blog
):
    url = article_url(article)

    unauthorized, document = page(api, url, status=401, method="PUT", body={"title": "x"})
    assert unauthorized["WWW-Authenticate"] == 'X-Access-Token realm="api"'
    assert hal_problem(document)[0] == "401 Authentication required"

    _, document = page(
        api, url, status=403, method="PUT", body={"title": "x"}, token=token_for(bob)
    )
    assert hal_problem(document)[0] == "403 Forbidden"

    stale = {"If-Match": '"not-the-current-tag"'}
    _, document = page(
        api, url, status=412, method="PUT", body={"title": "x"}, token=alice_token, headers=stale
    )
    assert hal_problem(document)[0] == "412 Precondition failed"

    _, document = page(api, url, status=422, method="PUT", body={"title": 5}, token=alice_token)
    assert hal_problem(document)[0] == "422 Validation failed"
    assert "title: Must be a string." in document.xpath("//div[contains(@class, 'hal-problem')]")[
        0
    ].text_content().replace("\n", " ")

    archived = f"{API}/blogs/{archived_blog.pk}/articles"
    _, document = page(
        api, archived, status=409, method="POST", body={"title": "x"}, token=alice_token
    )
    assert hal_problem(document) == ("409 Blog archived", "The blog is archived and read-only.")
    # No write forms on an error page.
    assert not document.xpath("//textarea") and not document.xpath("//form[@data-method]")


def test_too_many_requests_is_a_page_with_retry_after(api, blog, settings):
    settings.RATE_LIMIT_READ = "1/min"
    url = f"{API}/blogs/{blog.pk}"
    page(api, url)

    refused, document = page(api, url, status=429)

    assert int(refused["Retry-After"]) >= 1
    assert hal_problem(document)[0] == "429 Too many requests"


def test_an_unreachable_database_is_a_503_page(api, unreachable_database):
    response, document = page(api, f"{API}/blogs/1", status=503)

    assert int(response["Retry-After"]) > 0
    assert hal_problem(document)[0] == "503 Service unavailable"


def test_the_scripts_and_styles_of_the_page_are_static_files_of_this_site(api, article):
    _, document = page(api, article_url(article))

    sources = [s.get("src") for s in document.iter("script")]
    sources += [link.get("href") for link in document.iter("link")]
    assert "/static/articles/hal-browser.js" in sources
    assert "/static/articles/hal-browser.css" in sources
    for source in sources:
        assert finders.find(urlsplit(source).path.removeprefix("/static/")), source
    # No inline script (the Content-Security-Policy allows none without the nonce).
    assert all(s.get("src") or s.get("type") == "application/json" for s in document.iter("script"))


# --- in a real headless Chromium, against live_server ---------------------------------------


def script_errors(driver) -> list[str]:
    """Errors of the page's scripts (and policy violations); an HTTP error status the page was
    meant to show (a 401) and the favicon are not."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and "Failed to load resource" not in entry["message"]
    ]


@pytest.mark.browser
def test_in_chromium_the_templated_link_form_opens_the_expanded_url(
    chromium, live_server, article, alice
):
    from selenium.webdriver.common.by import By

    for text in ("one", "two", "three"):
        services.comment_create(article=article, author=alice, text=text)
    chromium.get(f"{live_server.url}{article_url(article)}")
    form = chromium.find_element(By.CSS_SELECTOR, "form.hal-template")
    form.find_element(By.NAME, "pageSize").send_keys("1")
    form.find_element(By.NAME, "pageIndex").send_keys("2")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    expected = f"{live_server.url}{article_url(article)}/comments?pageIndex=2&pageSize=1"
    assert wait_for(chromium, f"return location.href === {json.dumps(expected)}")
    assert wait_for(chromium, "return document.readyState === 'complete'")
    shown = chromium.find_element(By.CSS_SELECTOR, ".response-info").text
    assert '"text": "two"' in shown and '"text": "one"' not in shown

    # An empty field is an undefined variable: left out of the URL, not sent empty.
    chromium.get(f"{live_server.url}{article_url(article)}")
    form = chromium.find_element(By.CSS_SELECTOR, "form.hal-template")
    form.find_element(By.NAME, "pageSize").send_keys("2")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    expected = f"{live_server.url}{article_url(article)}/comments?pageSize=2"
    assert wait_for(chromium, f"return location.href === {json.dumps(expected)}")

    # A path variable (the root's doc:blog, `/blogs/{id}`) is expanded into the path.
    chromium.get(f"{live_server.url}{API}/")
    (form,) = [
        form
        for form in chromium.find_elements(By.CSS_SELECTOR, "form.hal-template")
        if form.get_attribute("data-template").endswith("{id}")
    ]
    form.find_element(By.NAME, "id").send_keys(str(article.blog_id))
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    expected = f"{live_server.url}{API}/blogs/{article.blog_id}"
    assert wait_for(chromium, f"return location.href === {json.dumps(expected)}")
    assert script_errors(chromium) == []


@pytest.mark.browser
def test_in_chromium_a_put_with_the_token_replaces_the_article(
    chromium, live_server, article, alice_token
):
    from selenium.webdriver.common.by import By

    url = f"{live_server.url}{article_url(article)}"
    chromium.get(url)
    put_form = chromium.find_element(By.CSS_SELECTOR, "form[data-method=PUT]")
    content = put_form.find_element(By.CSS_SELECTOR, "textarea")
    content.clear()
    content.send_keys('{"title": "Typed in Chromium", "content": "From the page"}')
    put_form.find_element(By.CSS_SELECTOR, "button").click()

    # Without the token: the 401 comes back as the page of the problem.
    assert wait_for(chromium, "return !!document.querySelector('.hal-problem')")
    assert (
        "401 Authentication required" in chromium.find_element(By.CSS_SELECTOR, ".hal-problem").text
    )
    assert Article.objects.get(pk=article.pk).title == "First post"

    chromium.get(url)
    chromium.find_element(By.ID, "access-token").send_keys(alice_token)
    put_form = chromium.find_element(By.CSS_SELECTOR, "form[data-method=PUT]")
    content = put_form.find_element(By.CSS_SELECTOR, "textarea")
    content.clear()
    content.send_keys('{"title": "Typed in Chromium", "content": "From the page"}')
    put_form.find_element(By.CSS_SELECTOR, "button").click()

    assert wait_for(
        chromium,
        "return document.querySelector('.response-info') !== null"
        " && document.querySelector('.response-info').textContent.includes('Typed in Chromium')",
    )
    article.refresh_from_db()
    assert (article.title, article.content) == ("Typed in Chromium", "From the page")
    # The page that replaced the form's is the new state's: its If-Match is the new tag, and
    # the token is still there (sessionStorage of this tab).
    assert chromium.find_element(By.ID, "access-token").get_attribute("value") == alice_token
    assert chromium.find_element(By.ID, "if-match").get_attribute("value").startswith('"')
    assert chromium.get_cookies() == []
    assert script_errors(chromium) == []


@pytest.mark.browser
def test_in_chromium_the_json_view_shows_what_a_hal_client_gets(chromium, live_server, article):
    from selenium.webdriver.common.by import By

    chromium.get(f"{live_server.url}{article_url(article)}")
    chromium.find_element(By.ID, "json-view-button").click()

    assert wait_for(chromium, "return !document.getElementById('json-view-body').hidden")
    shown = chromium.find_element(By.ID, "json-view-body").text
    head, _, text = shown.partition("\n\n")
    assert head.startswith("HTTP 200")
    assert "Content-Type: application/hal+json" in head
    assert json.loads(text)["_links"]["doc:comments"]["templated"] is True
    assert script_errors(chromium) == []
