"""The floor baseline answers in the contract's shapes, so that its bytes compare fairly."""

from __future__ import annotations

import pytest

from articles import services as article_services

pytestmark = [pytest.mark.django_db, pytest.mark.urls("bench.floor.urls")]

ORIGIN = "http://testserver"


@pytest.fixture
def articles(blog):
    return [
        article_services.article_create(blog=blog, title=f"Post {n}", content="Text")
        for n in range(1, 26)
    ]


def test_an_article_has_the_contracts_links(client, blog, articles):
    article = articles[0]

    body = client.get(f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}").json()

    self_href = f"{ORIGIN}/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"
    assert body["id"] == article.pk
    assert body["title"] == "Post 1"
    assert body["content"] == "Text"
    assert body["_links"]["self"] == {"href": self_href}
    assert body["_links"]["doc:blog"] == {
        "href": f"{ORIGIN}/api/v1.2/blogs/{blog.pk}",
        "title": blog.title,
    }
    assert body["_links"]["doc:comments"]["templated"] is True
    assert body["_links"]["curies"][0]["name"] == "doc"


def test_an_article_without_content_leaves_the_field_out(client, blog):
    article = article_services.article_create(blog=blog, title="Bare")

    body = client.get(f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}").json()

    assert "content" not in body


def test_a_middle_page_has_every_page_link_and_its_articles(client, blog, articles):
    body = client.get(f"/api/v1.2/blogs/{blog.pk}/articles?pageIndex=2&pageSize=10").json()

    assert (body["pageIndex"], body["pageSize"]) == (2, 10)
    assert (body["totalPages"], body["totalArticles"]) == (3, 25)
    assert [a["id"] for a in body["_embedded"]] == [a.pk for a in articles[10:20]]
    assert list(body["_link"]) == ["firstPage", "previousPage", "self", "nextPage", "lastPage"]
    assert body["_link"]["lastPage"]["href"].endswith("?pageIndex=3&pageSize=10")
    assert {**body["_links"], "curies": None} == {**body["_link"], "curies": None}


def test_an_empty_blog_has_no_pages_and_its_last_page_is_page_1(client, other_blog):
    body = client.get(f"/api/v1.2/blogs/{other_blog.pk}/articles").json()

    assert (body["totalPages"], body["totalArticles"], body["_embedded"]) == (0, 0, [])
    assert body["_link"]["lastPage"]["href"].endswith("?pageIndex=1&pageSize=10")
    assert "nextPage" not in body["_link"]


def test_the_count_scan_agrees_with_the_counter(client, blog, articles):
    article_services.article_delete(article=articles[0])
    blog.refresh_from_db()

    body = client.get(f"/bench/count/{blog.pk}").json()

    assert body["totalArticles"] == blog.article_count == 24
