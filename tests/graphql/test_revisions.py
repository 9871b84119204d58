"""An article's revisions in GraphQL: the same data as REST, and no query per article."""

from __future__ import annotations

from datetime import datetime

from django.db import connection

from articles import services as article_services
from tests.support.queries import ContentQueries, outside_savepoints

ARTICLE_REVISIONS = """query ($blogId: ID!, $id: ID!) {
  article(blogId: $blogId, id: $id) {
    title
    revisions { revision title content articleEtag replacedAt replacedBy }
  }
}"""
BLOG_ARTICLES_REVISIONS = """query ($id: ID!, $size: Int) {
  blog(id: $id) {
    articles(pageSize: $size) { items { id title revisions { revision title replacedBy } } }
  }
}"""
THROUGH_A_FRAGMENT = """query ($id: ID!) {
  blog(id: $id) { articles { items { ...Kept } } }
}
fragment Kept on Article { id revisions { revision } }"""
BLOG_ARTICLES = "query ($id: ID!) { blog(id: $id) { articles { items { title } } } }"


def replace(article, title: str, actor) -> None:
    current = type(article).objects.select_related("blog").get(pk=article.pk)
    article_services.article_replace(
        article=current, title=title, content=current.content, actor=actor
    )


def test_an_articles_revisions_are_the_replaced_states_newest_first(
    gql, api_etag, blog, article, alice, editor
):
    etag = api_etag(article)
    replace(article, "Second", alice)
    replace(article, "Third", editor)

    data = gql.data(ARTICLE_REVISIONS, {"blogId": blog.pk, "id": article.pk})["article"]
    assert data["title"] == "Third"
    newest, oldest = data["revisions"]
    assert (newest["revision"], newest["title"], newest["replacedBy"]) == (2, "Second", "editor")
    assert (oldest["revision"], oldest["title"], oldest["content"]) == (1, "First post", "Hello")
    assert oldest["replacedBy"] == "alice"
    assert oldest["articleEtag"] == etag
    assert datetime.fromisoformat(oldest["replacedAt"]) <= datetime.fromisoformat(
        newest["replacedAt"]
    )


def test_a_never_replaced_article_has_no_revisions(gql, blog, article):
    data = gql.data(ARTICLE_REVISIONS, {"blogId": blog.pk, "id": article.pk})
    assert data["article"]["revisions"] == []


def test_a_blogs_articles_are_paged_oldest_first(gql, blog, article):
    for number in range(2, 5):
        article_services.article_create(blog=blog, title=f"Post {number}")
    data = gql.data(BLOG_ARTICLES_REVISIONS, {"id": blog.pk, "size": 2})
    assert [a["title"] for a in data["blog"]["articles"]["items"]] == ["First post", "Post 2"]
    bad = gql.post(BLOG_ARTICLES_REVISIONS, {"id": blog.pk, "size": 1000}).json()
    assert "pageSize" in bad["errors"][0]["message"]


def queries_for(gql, document: str, variables: dict) -> tuple[dict, int]:
    """The data and the number of statements (not the savepoints a test's transaction puts
    around the page's time bound)."""
    with ContentQueries(connection) as captured:
        data = gql.data(document, variables)
    return data, len(outside_savepoints(captured))


# On PostgreSQL a page of articles runs one more statement, whatever the page: its time bound
# (`set_config('statement_timeout', ...)`, articles.pages).
TIME_BOUND = int(connection.vendor == "postgresql")


def test_revisions_of_several_articles_cost_one_query_for_all(gql, blog, alice, editor):
    def grow(articles: int, revisions: int) -> None:
        for number in range(articles):
            article = article_services.article_create(blog=blog, title=f"A{number}")
            for revision in range(revisions):
                replace(article, f"A{number} r{revision}", editor if revision % 2 else alice)

    grow(2, 2)
    small, few = queries_for(gql, BLOG_ARTICLES_REVISIONS, {"id": blog.pk, "size": 100})
    assert [len(a["revisions"]) for a in small["blog"]["articles"]["items"]] == [2, 2]
    grow(4, 3)
    large, many = queries_for(gql, BLOG_ARTICLES_REVISIONS, {"id": blog.pk, "size": 100})
    assert [len(a["revisions"]) for a in large["blog"]["articles"]["items"]] == [2, 2, 3, 3, 3, 3]
    assert large["blog"]["articles"]["items"][2]["revisions"][0] == {
        "revision": 3,
        "title": "A0 r1",
        "replacedBy": "alice",
    }
    # The blog; the page of articles; the revisions of all of them with their users.
    assert few == many == 3 + TIME_BOUND


def test_a_fragment_asking_for_revisions_is_served_from_the_same_one_query(gql, blog, alice):
    for number in range(3):
        article = article_services.article_create(blog=blog, title=f"A{number}")
        replace(article, f"A{number} again", alice)
    data, count = queries_for(gql, THROUGH_A_FRAGMENT, {"id": blog.pk})
    assert [a["revisions"] for a in data["blog"]["articles"]["items"]] == [[{"revision": 1}]] * 3
    assert count == 3 + TIME_BOUND


def test_articles_without_revisions_asked_read_none(gql, blog, article, alice):
    replace(article, "Second", alice)
    _, count = queries_for(gql, BLOG_ARTICLES, {"id": blog.pk})
    assert count == 2 + TIME_BOUND
