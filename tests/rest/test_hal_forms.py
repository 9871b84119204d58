"""HAL-FORMS: with `Accept: application/prs.hal-forms+json` an article page and an article carry
the `_templates` of their writes, with the constraints the API checks; a HAL-FORMS client
(ketting) writes and replaces an article from the templates alone."""

from __future__ import annotations

import re

import pytest

from articles import services
from articles.models import Article
from blogs import services as blog_services
from tests.rest.conftest import API, body
from tests.support.node import run_module

HAL_FORMS = "application/prs.hal-forms+json"


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def page_url(blog) -> str:
    return f"{API}/blogs/{blog.pk}/articles"


def forms(api, url: str, **headers: str):
    return api.get(url, headers={"Accept": HAL_FORMS, **headers})


def absolute(path: str) -> str:
    return f"http://testserver{path}"


TITLE = {
    "name": "title",
    "prompt": "Title",
    "type": "text",
    "required": True,
    "minLength": 1,
    "maxLength": 200,
    "regex": r"[\s\S]*\S[\s\S]*",
}
CONTENT = {"name": "content", "prompt": "Content", "type": "textarea", "required": False}


# --- the shape ----------------------------------------------------------------------------------


def test_an_article_page_offers_the_create_template(api, article):
    response = forms(api, page_url(article.blog))

    assert response.status_code == 200
    assert response["Content-Type"] == HAL_FORMS
    page = body(response)
    assert page["_templates"] == {
        "default": {
            "title": "Write a new article",
            "method": "POST",
            "target": absolute(page_url(article.blog)),
            "contentType": "application/json",
            "properties": [TITLE, CONTENT],
        }
    }
    # Otherwise the page is the HAL page, and the articles it embeds carry no templates.
    assert page["totalArticles"] == 1 and "_link" in page and "_links" in page
    assert "_templates" not in page["_embedded"][0]


def test_an_article_offers_replace_with_its_current_values_delete_and_comment(api, article):
    response = forms(api, article_url(article))

    assert response.status_code == 200
    assert response["Content-Type"] == HAL_FORMS
    templates = body(response)["_templates"]
    assert list(templates) == ["default", "delete", "comment"]
    assert templates["default"] == {
        "title": "Replace this article",
        "method": "PUT",
        "target": absolute(article_url(article)),
        "contentType": "application/json",
        "properties": [{**TITLE, "value": "First post"}, {**CONTENT, "value": "Hello"}],
    }
    assert templates["delete"] == {
        "title": "Delete this article",
        "method": "DELETE",
        "target": absolute(article_url(article)),
        "contentType": "application/json",
        "properties": [],
    }
    assert templates["comment"]["method"] == "POST"
    assert templates["comment"]["target"] == absolute(f"{article_url(article)}/comments")
    assert templates["comment"]["properties"] == [
        {
            "name": "text",
            "prompt": "Comment",
            "type": "textarea",
            "required": True,
            "minLength": 1,
            "maxLength": 10_000,
            "regex": r"[\s\S]*\S[\s\S]*",
        }
    ]


def test_an_article_without_content_offers_no_content_value(api, blog):
    article = services.article_create(blog=blog, title="Bare")

    replace = body(forms(api, article_url(article)))["_templates"]["default"]

    assert replace["properties"][1] == CONTENT


@pytest.mark.parametrize("accept", [None, "application/hal+json", "application/json", "*/*"])
def test_hal_and_json_clients_get_no_templates(api, article, accept):
    headers = {"Accept": accept} if accept else {}
    for url in (page_url(article.blog), article_url(article)):
        response = api.get(url, headers=headers)
        assert response.status_code == 200
        assert "_templates" not in body(response), (url, accept)


# ketting's default Accept (its Client.contentTypeMap, each type with its q-value).
KETTING_ACCEPT = (
    f"{HAL_FORMS};q=1.0, application/hal+json;q=0.9, application/vnd.api+json;q=0.8,"
    " application/vnd.siren+json;q=0.8, application/vnd.collection+json;q=0.8,"
    " application/json;q=0.7, text/html;q=0.6"
)


def test_a_client_that_ranks_hal_forms_above_hal_gets_hal_forms(api, article):
    response = api.get(article_url(article), headers={"Accept": KETTING_ACCEPT})

    assert response["Content-Type"] == HAL_FORMS
    assert "default" in body(response)["_templates"]


def test_a_client_that_ranks_hal_above_hal_forms_gets_hal(api, article):
    accept = f"{HAL_FORMS};q=0.5, application/hal+json"
    response = api.get(article_url(article), headers={"Accept": accept})

    assert response["Content-Type"] == "application/hal+json"
    assert "_templates" not in body(response)


def test_the_other_resources_answer_hal_forms_without_templates(api, article):
    for url in (
        f"{API}/",
        f"{API}/blogs",
        f"{API}/blogs/{article.blog_id}",
        f"{article_url(article)}/comments",
    ):
        response = forms(api, url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == HAL_FORMS, url
        assert "_templates" not in body(response), url


def test_the_version_parameter_works_with_hal_forms_too(api, article):
    unversioned = article_url(article).replace(API, "/api")
    response = api.get(unversioned, headers={"Accept": f"{HAL_FORMS}; version=1.2"})

    assert response.status_code == 200
    assert "Accept" in response["Vary"]
    # Links and targets use the canonical prefix.
    assert body(response)["_templates"]["default"]["target"] == absolute(article_url(article))


def test_an_unknown_media_type_is_still_406(api, article):
    for accept in ("application/vnd.siren+json", f"{HAL_FORMS}; version=9.9"):
        response = api.get(article_url(article), headers={"Accept": accept})
        assert response.status_code == 406, accept
        assert response["Content-Type"] == "application/problem+json"


# --- what may be done ---------------------------------------------------------------------------


def test_an_archived_blog_offers_no_templates(api, archived_blog):
    article = Article.objects.create(blog=archived_blog, title="Kept")

    assert "_templates" not in body(forms(api, page_url(archived_blog)))
    assert "_templates" not in body(forms(api, article_url(article)))


def test_a_locked_article_offers_only_the_comment_template_at_once(api, article):
    before = forms(api, article_url(article))  # now in the representation cache

    services.article_lock(article=article)
    locked = forms(api, article_url(article))

    assert list(body(locked)["_templates"]) == ["comment"]
    assert locked["ETag"] != before["ETag"]
    assert forms(api, article_url(article), **{"If-None-Match": before["ETag"]}).status_code == 200


def test_archiving_a_blog_takes_the_templates_away_at_once(api, article):
    forms(api, page_url(article.blog))
    forms(api, article_url(article))

    blog_services.blog_archive(blog=article.blog)

    assert "_templates" not in body(forms(api, page_url(article.blog)))
    assert "_templates" not in body(forms(api, article_url(article)))


def test_the_constraints_are_those_the_api_enforces(api, blog, alice_token):
    properties = body(forms(api, page_url(blog)))["_templates"]["default"]["properties"]
    title = next(p for p in properties if p["name"] == "title")
    url = page_url(blog)

    longest = "t" * title["maxLength"]
    assert re.fullmatch(title["regex"], longest)
    assert api.write("POST", url, {"title": longest}, token=alice_token).status_code == 201
    for refused in ("t" * (title["maxLength"] + 1), " \n ", ""):
        assert len(refused) > title["maxLength"] or not re.fullmatch(title["regex"], refused)
        response = api.write("POST", url, {"title": refused}, token=alice_token)
        assert response.status_code == 422, refused
    # content is optional: a body without it is accepted.
    assert api.write("POST", url, {"title": "No content"}, token=alice_token).status_code == 201


def test_the_comment_limits_are_those_the_api_enforces(api, article, alice_token):
    template = body(forms(api, article_url(article)))["_templates"]["comment"]
    limit = template["properties"][0]["maxLength"]
    target = template["target"].removeprefix("http://testserver")

    too_long = api.write("POST", target, {"text": "x" * (limit + 1)}, token=alice_token)
    at_limit = api.write("POST", target, {"text": "x" * limit}, token=alice_token)

    assert too_long.status_code == 422
    assert at_limit.status_code == 201


# --- the cache and the ETags --------------------------------------------------------------------


@pytest.mark.parametrize("first", [HAL_FORMS, "application/hal+json"])
def test_the_cache_keeps_the_hal_forms_and_the_hal_body_apart(api, article, first):
    second = "application/hal+json" if first == HAL_FORMS else HAL_FORMS
    for url in (page_url(article.blog), article_url(article)):
        api.get(url, headers={"Accept": first})  # fills the cache

        answered = api.get(url, headers={"Accept": second})

        assert ("_templates" in body(answered)) == (second == HAL_FORMS), url
        assert answered["Content-Type"] == second


def test_the_hal_forms_body_has_its_own_etag_for_the_same_state(api, article):
    for url in (page_url(article.blog), article_url(article)):
        hal = api.get(url)
        hal_forms = forms(api, url)

        assert hal_forms["ETag"] != hal["ETag"], url
        assert forms(api, url, **{"If-None-Match": hal_forms["ETag"]}).status_code == 304
        assert forms(api, url, **{"If-None-Match": hal["ETag"]}).status_code == 200
        not_modified = api.get(url, headers={"If-None-Match": hal_forms["ETag"]})
        assert not_modified.status_code == 200, url


def test_if_match_accepts_the_hal_forms_tag_and_a_write_answers_the_new_one(
    api, article, alice_token
):
    etag = forms(api, article_url(article))["ETag"]

    replaced = api.write(
        "PUT",
        article_url(article),
        {"title": "Replaced"},
        token=alice_token,
        headers={"Accept": HAL_FORMS, "If-Match": etag},
    )

    assert replaced.status_code == 200
    assert replaced["Content-Type"] == HAL_FORMS
    assert body(replaced)["_templates"]["default"]["properties"][0]["value"] == "Replaced"
    assert replaced["ETag"] == forms(api, article_url(article))["ETag"]
    assert replaced["ETag"] != api.get(article_url(article))["ETag"]
    stale = api.write(
        "PUT",
        article_url(article),
        {"title": "Again"},
        token=alice_token,
        headers={"Accept": HAL_FORMS, "If-Match": etag},
    )
    assert stale.status_code == 412


def test_a_create_answers_the_new_article_with_its_templates(api, blog, alice_token):
    created = api.write(
        "POST", page_url(blog), {"title": "New"}, token=alice_token, headers={"Accept": HAL_FORMS}
    )

    assert created.status_code == 201
    assert created["Content-Type"] == HAL_FORMS
    assert list(body(created)["_templates"]) == ["default", "delete", "comment"]
    location = created["Location"].removeprefix("http://testserver")
    assert created["ETag"] == forms(api, location)["ETag"]


# --- a HAL-FORMS client -------------------------------------------------------------------------

KETTING_WRITES_FROM_THE_TEMPLATES = """
import { Client } from 'ketting';
const [origin, pagePath, token] = process.argv.slice(1);
const client = new Client(origin);
// ketting's own Accept, which ranks HAL-FORMS first; the token with every request.
client.use((request, next) => {
  request.headers.set('X-Access-Token', token);
  return next(request);
});
const page = await client.go(pagePath).get();
const create = page.action('default');
const created = await create.submit({ title: 'Written from the template', content: 'Draft' });
const replace = created.action('default');
// Only the title is given: the template's value carries the content over.
const replaced = await replace.submit({ title: 'Replaced from the template' });
console.log(JSON.stringify({
  create: { method: create.method, uri: create.uri,
            fields: create.fields.map((f) => [f.name, f.required, f.maxLength ?? null]) },
  replace: { method: replace.method, uri: replace.uri },
  created: created.data,
  replaced: replaced.data,
}));
"""


def test_ketting_creates_and_replaces_an_article_from_the_templates(live_server, blog, alice_token):
    found = run_module(
        KETTING_WRITES_FROM_THE_TEMPLATES, live_server.url, page_url(blog), alice_token
    )

    article = Article.objects.get(blog=blog)
    assert found["create"] == {
        "method": "POST",
        "uri": f"{live_server.url}{page_url(blog)}",
        "fields": [["title", True, 200], ["content", False, None]],
    }
    assert found["replace"] == {"method": "PUT", "uri": f"{live_server.url}{article_url(article)}"}
    assert found["created"]["title"] == "Written from the template"
    assert found["replaced"] == {
        "id": article.pk,
        "title": "Replaced from the template",
        "content": "Draft",
        "contentHtml": "<p>Draft</p>",
        "excerpt": "Draft",
        # The slug was made from the first title; a PUT without one keeps it.
        "slug": "written-from-the-template",
        "publishedAt": article.published_at.isoformat().replace("+00:00", "Z"),
        "tags": [],
        "contentFormat": "text",
    }
    assert (article.title, article.content, article.version) == (
        "Replaced from the template",
        "Draft",
        2,
    )
