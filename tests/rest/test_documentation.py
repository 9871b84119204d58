"""Documentation that resolves: the doc: relations, the OpenAPI schema and its viewer."""

from __future__ import annotations

import json
import re

import lxml.html
import pytest
import yaml
from uritemplate import URITemplate

from core.problems import PROBLEM_TYPES
from rest.docs import RELATIONS
from tests.rest.conftest import API, body


@pytest.mark.parametrize("rel", sorted(RELATIONS))
def test_every_relation_has_an_html_page_naming_its_methods(api, db, rel):
    response = api.get(f"/docs/rels/{rel}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert f"doc:{rel}" in html
    for operation in RELATIONS[rel].operations:
        assert f"<code>{operation.method}</code>" in html


def test_an_unknown_relation_is_404(api, db):
    assert api.get("/docs/rels/nonsense").status_code == 404


def test_the_relation_index_lists_every_relation_with_its_title_and_every_problem_type(api, db):
    response = api.get("/docs/rels/", headers={"Accept": "text/html"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    page = lxml.html.fromstring(response.content)
    rows = {
        row.findtext("td/a/code"): (row.xpath("td/a/@href")[0], row.findtext("td[2]"))
        for row in page.xpath("//table[1]/tbody/tr")
    }
    assert rows == {
        f"doc:{rel}": (f"/docs/rels/{rel}", relation.title) for rel, relation in RELATIONS.items()
    }
    problem_links = set(page.xpath("//h2[@id='problems']/following::table//a/@href"))
    assert problem_links == {f"/docs/problems/{slug}" for slug in PROBLEM_TYPES}


def test_the_documentation_pages_share_one_stylesheet_served_from_this_site(api, db, settings):
    settings.WHITENOISE_USE_FINDERS = True  # as collectstatic would serve it
    pages = ["/docs/rels/", "/docs/rels/articles", "/docs/problems/gone"]
    stylesheets = set()
    for path in pages:
        page = lxml.html.fromstring(api.get(path, headers={"Accept": "text/html"}).content)
        assert not page.xpath("//style | //*[@style]"), path
        (stylesheet,) = page.xpath("//link[@rel='stylesheet']/@href")
        stylesheets.add(stylesheet)
    (stylesheet,) = stylesheets
    response = api.get(stylesheet)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")


def schema(api) -> dict:
    response = api.get("/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"})
    assert response.status_code == 200
    return json.loads(response.content)


def test_the_schema_describes_the_canonical_paths_once_under_its_server_url(api, db):
    document = schema(api)

    assert document["servers"] == [
        {"url": "http://testserver/api/v1.2", "description": "This service, version 1.2"}
    ]
    assert set(document["paths"]) == {
        "/",
        "/articles",
        "/blogs",
        "/blogs/{blog_id}",
        "/blogs/{blog_id}/feed",
        "/blogs/{blog_id}/articles",
        "/blogs/{blog_id}/articles/{article_id}",
        "/blogs/{blog_id}/articles/by-slug/{slug}",
        "/blogs/{blog_id}/tags",
        "/blogs/{blog_id}/tags/{tag_slug}",
        "/blogs/{blog_id}/articles/{article_id}/comments",
        "/blogs/{blog_id}/articles/{article_id}/comments/{comment_id}",
        "/blogs/{blog_id}/webhooks",
        "/blogs/{blog_id}/webhooks/{webhook_id}",
        "/blogs/{blog_id}/webhooks/{webhook_id}/rotate-secret",
        "/blogs/{blog_id}/webhooks/{webhook_id}/deliveries",
        "/blogs/{blog_id}/webhooks/{webhook_id}/deliveries/{delivery_id}",
        "/blogs/{blog_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
        "/blogs/{blog_id}/articles/{article_id}/revisions",
        "/blogs/{blog_id}/articles/{article_id}/revisions/{revision}",
        "/blogs/{blog_id}/drafts",
        "/blogs/{blog_id}/drafts/{draft_id}",
        "/blogs/{blog_id}/drafts/{draft_id}/publish",
        "/blogs/{blog_id}/drafts/{draft_id}/preview",
        "/blogs/{blog_id}/articles/{article_id}/drafts",
        "/previews/{token}",
    }


def test_the_schema_has_the_hal_shapes_paging_token_and_problems(api, db):
    document = schema(api)
    components = document["components"]
    article_links = components["schemas"]["Article"]["properties"]["_links"]
    page = components["schemas"]["ArticlePage"]["properties"]
    put = document["paths"]["/blogs/{blog_id}/articles/{article_id}"]["put"]

    assert set(article_links["required"]) == {
        "curies",
        "self",
        "doc:blog",
        "doc:comments",
        "doc:revisions",
    }
    assert {"pageIndex", "pageSize", "totalPages", "totalArticles", "_link", "_links"} <= set(page)
    assert page["_embedded"]["type"] == "array"
    scheme = components["securitySchemes"]["accessToken"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "X-Access-Token")
    assert put["security"] == [{"accessToken": []}]
    for status in ("401", "403", "404", "409", "410", "412", "422", "423"):
        content = put["responses"][status]["content"]
        assert content["application/problem+json"]["schema"] == {
            "$ref": "#/components/schemas/Problem"
        }
    assert {p["name"] for p in put["parameters"]} >= {"If-Match", "If-Unmodified-Since"}


def test_the_schema_is_also_served_as_yaml(api, db):
    response = api.get("/api/schema/")

    assert response.status_code == 200
    assert yaml.safe_load(response.content)["info"]["version"] == "1.2"


def test_swagger_ui_is_served_from_this_site_only(api, db, settings):
    # Static files come from the app folders here; a deployment runs collectstatic instead.
    settings.WHITENOISE_USE_FINDERS = True
    response = api.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets
    for asset in assets:
        assert not re.match(r"(https?:)?//", asset), asset
        assert api.get(asset).status_code == 200, asset
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    assert '"validatorUrl": null' in html  # no badge fetched from validator.swagger.io
    assert "/api/schema/" in html


def test_a_hal_client_walks_from_the_root_to_every_article(api, blog, other_blog, bob):
    """Root -> curies (each doc: href really documents) -> templated links -> pages to the end."""
    from articles import services

    for n in range(23):
        article = services.article_create(blog=blog, title=f"Walk {n}")
    services.comment_create(article=article, author=bob, text="Last word")
    services.article_create(blog=other_blog, title="Elsewhere")

    root = body(api.get(f"{API}/"))
    curie = next(c for c in root["_links"]["curies"] if c["name"] == "doc")
    assert curie["templated"] is True
    seen_rels: set[str] = set()

    def follow(document: dict) -> None:
        for rel, value in document.get("_links", {}).items():
            if rel.startswith("doc:") and rel not in seen_rels:
                seen_rels.add(rel)
                docs = api.get(URITemplate(curie["href"]).expand(rel=rel.removeprefix("doc:")))
                assert docs.status_code == 200, rel
                assert docs["Content-Type"].startswith("text/html")
            assert isinstance(value, (dict, list)), rel

    follow(root)
    blog_link = root["_links"]["doc:blog"]
    assert blog_link["templated"] is True
    blog_doc = body(api.get(URITemplate(blog_link["href"]).expand(id=blog.pk)))
    follow(blog_doc)
    articles_template = URITemplate(blog_doc["_links"]["doc:articles"]["href"])
    assert set(articles_template.variable_names) == {"pageIndex", "pageSize", "q", "sort", "tag"}

    url = articles_template.expand(pageSize=5)
    titles, pages = [], 0
    while url:
        page = body(api.get(url))
        pages += 1
        follow(page)
        for article in page["_embedded"]:
            titles.append(article["title"])
            follow(article)
            comments = URITemplate(article["_links"]["doc:comments"]["href"]).expand(pageSize=2)
            for comment in body(api.get(comments))["_embedded"]:
                follow(comment)
                back = body(api.get(comment["_links"]["doc:article"]["href"]))
                assert back["id"] == article["id"]
        url = page["_links"].get("nextPage", {}).get("href")
        assert page["_link"].get("nextPage", {}).get("href") == url

    assert pages == 5
    assert titles == [f"Walk {n}" for n in range(23)]
    assert page["totalArticles"] == len(titles)
    assert seen_rels == {
        "doc:blogs",
        "doc:blog",
        "doc:search",
        "doc:articles",
        "doc:comments",
        "doc:article",
        "doc:webhooks",
        "doc:drafts",
        "doc:revisions",
        "doc:tags",
    }


def test_options_on_the_swagger_ui_page_answers_its_methods(client):
    response = client.options("/api/docs/")
    assert response.status_code == 200
    assert response["Allow"] == "GET, HEAD, OPTIONS"


@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/api/docs/", "text/html"),
        ("/api/schema/", "*/*"),
        ("/api/v1.2/", "text/html"),
        ("/graphql", "text/html"),
        ("/soap/calculator", "text/html"),
    ],
)
def test_pages_of_the_api_surfaces_set_no_cookie(client, db, path, accept):
    response = client.get(path, HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert not response.cookies
    assert "Set-Cookie" not in response
