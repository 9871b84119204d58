"""Blogs and articles, read-only: the same data the REST surface serves."""

from __future__ import annotations

import pytest

from articles import services as article_services
from tests.support.queries import content_queries

BLOG = "query ($id: ID!) { blog(id: $id) { id title description } }"
ARTICLE = """query ($blogId: ID!, $id: ID!) {
  article(blogId: $blogId, id: $id) { id title content blog { id title } }
}"""


def test_a_blog_reads_by_id(gql, blog):
    assert gql.data(BLOG, {"id": str(blog.pk)})["blog"] == {
        "id": str(blog.pk),
        "title": "Alice's blog",
        "description": "Notes from Alice",
    }


def test_an_archived_blog_stays_readable(gql, archived_blog):
    assert gql.data(BLOG, {"id": archived_blog.pk})["blog"]["title"] == "Old blog"


def test_an_article_reads_with_its_blog(gql, blog, article):
    data = gql.data(ARTICLE, {"blogId": blog.pk, "id": article.pk})
    assert data["article"] == {
        "id": str(article.pk),
        "title": "First post",
        "content": "Hello",
        "blog": {"id": str(blog.pk), "title": "Alice's blog"},
    }


def test_an_article_without_content_has_content_null(gql, blog):
    bare = article_services.article_create(blog=blog, title="Just a title")
    assert gql.data(ARTICLE, {"blogId": blog.pk, "id": bare.pk})["article"]["content"] is None


def test_an_article_asked_under_another_blog_is_null(gql, article, other_blog):
    assert gql.data(ARTICLE, {"blogId": other_blog.pk, "id": article.pk}) == {"article": None}


def test_a_deleted_article_is_null(gql, blog, article):
    article_services.article_delete(article=article)
    assert gql.data(ARTICLE, {"blogId": blog.pk, "id": article.pk}) == {"article": None}


@pytest.mark.parametrize("blog_id", ["9999", "abc", "-1"])
def test_unknown_blogs_are_null(gql, db, blog_id):
    assert gql.data(BLOG, {"id": blog_id}) == {"blog": None}


def test_an_article_and_its_blog_take_two_queries(gql, blog, article):
    with content_queries(2):
        gql.data(ARTICLE, {"blogId": blog.pk, "id": article.pk})
