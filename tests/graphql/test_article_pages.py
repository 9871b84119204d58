"""`blog { articles(pageIndex, pageSize, q, sort) }`: REST's pages of a blog's articles,
searched and ordered the same way, in a fixed number of queries."""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from articles import services
from articles.models import Article
from blogs.models import Blog
from tests.support.queries import ContentQueries, outside_savepoints

PAGE = """query ($id: ID!, $pageIndex: Int, $pageSize: Int, $q: String, $sort: String) {
  blog(id: $id) {
    title
    articles(pageIndex: $pageIndex, pageSize: $pageSize, q: $q, sort: $sort) {
      count pageIndex pageSize pageCount
      items { id title content blog { id title } }
    }
  }
}"""


@pytest.fixture
def garden(blog):
    return [
        services.article_create(blog=blog, title=title, content=content)
        for title, content in [
            ("Tomatoes in the garden", "Red fruit grows on the vine."),
            ("Kitchen notes", "Soup from garden tomatoes and basil."),
            ("Winter garden", "Frost covers the beds; nothing grows."),
            ("A quiet kitchen", "Bread rises slowly."),
        ]
    ]


def page(gql, blog, **variables):
    return gql.data(PAGE, {"id": blog.pk, **variables})["blog"]["articles"]


def titles(result) -> list[str]:
    return [item["title"] for item in result["items"]]


def test_the_first_page_is_oldest_first_with_the_totals(gql, blog, garden):
    result = page(gql, blog, pageSize=3)

    assert titles(result) == [a.title for a in garden[:3]]
    assert (result["count"], result["pageIndex"], result["pageSize"], result["pageCount"]) == (
        4,
        1,
        3,
        2,
    )
    assert result["items"][0]["blog"] == {"id": str(blog.pk), "title": "Alice's blog"}
    assert titles(page(gql, blog, pageSize=3, pageIndex=2)) == ["A quiet kitchen"]


def test_q_searches_and_ranks_title_matches_first(gql, blog, garden):
    services.article_create(blog=blog, title="Basil", content="A herb.")

    result = page(gql, blog, q="basil")

    assert titles(result) == ["Basil", "Kitchen notes"]
    assert (result["count"], result["pageCount"]) == (2, 1)


def test_sort_orders_the_page_as_rest_does(gql, blog, garden):
    assert titles(page(gql, blog, sort="-title")) == sorted((a.title for a in garden), reverse=True)
    assert titles(page(gql, blog, q="garden", sort="title")) == [
        "Kitchen notes",
        "Tomatoes in the garden",
        "Winter garden",
    ]


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"q": ""}, "q must not be empty."),
        ({"q": "x" * 201}, "q must be at most 200 characters."),
        ({"sort": "price"}, "sort must be one of: created, -created, updated, -updated, title,"),
        ({"sort": "relevance"}, "sort=relevance needs q."),
        ({"pageSize": 101}, "pageSize must be 1 to 100."),
        ({"pageIndex": 0}, "pageIndex must be a positive integer."),
    ],
)
def test_a_bad_argument_is_a_graphql_error_naming_it(gql, blog, variables, message):
    response = gql.post(PAGE, {"id": blog.pk, **variables})

    assert response.status_code == 200
    document = response.json()
    (error,) = document["errors"]
    assert error["message"].startswith(message)
    assert error["path"] == ["blog", "articles"]
    assert document["data"] == {"blog": {"title": "Alice's blog", "articles": None}}


def test_a_page_costs_the_same_queries_for_10_or_100_articles(gql, blog):
    Article.objects.bulk_create(Article(blog=blog, title=f"N {n}", content="x") for n in range(100))
    Blog.objects.filter(pk=blog.pk).update(article_count=100)

    for size in (10, 100):
        # The blog; then the page's ids and rows in one statement (the count is the blog's); on
        # PostgreSQL the page's time bound (statement_timeout) before it.
        with ContentQueries(connection) as queries:
            assert len(page(gql, blog, pageSize=size)["items"]) == size
        sql = outside_savepoints(queries)
        assert len(sql) == 2 + (connection.vendor == "postgresql"), sql
        # The blog; on SQLite the page with the number of matches (COUNT(*) OVER ()); on
        # PostgreSQL the search's time budget (statement_timeout), the ranking (the number and
        # the first ids) and the page's rows, with savepoints around them because the test runs
        # in a transaction (not counted: a request outside one has none).
        with ContentQueries(connection) as queries:
            assert len(page(gql, blog, pageSize=size, q="x", sort="title")["items"]) == size
        sql = [q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
        assert len(sql) == (4 if connection.vendor == "postgresql" else 2), sql


def test_a_long_run_of_minus_signs_in_q_is_a_page_not_a_fault(gql, blog, garden, caplog):
    # More NOTs than PostgreSQL's tsquery parser can stack (issue 24): read as the one NOT, or
    # none (an even run), that the run amounts to; on SQLite the run is text, found nowhere.
    expected = (
        ["Kitchen notes", "Tomatoes in the garden"] if connection.vendor == "postgresql" else []
    )

    result = page(gql, blog, q="-" * 34 + "tomatoes garden", sort="title")

    assert titles(result) == expected
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_the_last_page_graphql_can_name_is_an_empty_page_with_the_total(gql, blog, garden):
    result = page(gql, blog, q="garden", pageIndex=2**31 - 1, pageSize=100)

    assert (result["items"], result["count"], result["pageIndex"]) == ([], 3, 2**31 - 1)


def test_an_explicit_null_page_argument_is_its_default(gql, blog, garden):
    # Nullable arguments: a variable sent as null is the default, as for q and sort.
    result = page(gql, blog, pageIndex=None, pageSize=None, q=None, sort=None)

    assert titles(result) == [a.title for a in garden]
    assert (result["pageIndex"], result["pageSize"]) == (1, 10)
