"""Issue 29 (A2) in GraphQL: an article's slug, publishedAt, tags, contentFormat; a blog's tags;
articles(tag:)."""

from __future__ import annotations

from articles import services

ARTICLE = """query ($blogId: ID!, $id: ID!) {
  article(blogId: $blogId, id: $id) { slug publishedAt tags contentFormat }
}"""

BLOG = """query ($id: ID!, $tag: String) {
  blog(id: $id) {
    tags { name slug articleCount }
    articles(tag: $tag) { count items { title tags } }
  }
}"""


def test_an_article_reads_its_slug_publication_tags_and_format(gql, blog):
    article = services.article_create(
        blog=blog, title="Hello there", tags=["Web", "api"], content_format="markdown"
    )
    data = gql.data(ARTICLE, {"blogId": blog.pk, "id": article.pk})["article"]
    assert data["slug"] == "hello-there"
    assert data["tags"] == ["api", "Web"]
    assert data["contentFormat"] == "markdown"
    assert data["publishedAt"].startswith(article.published_at.strftime("%Y-%m-%dT%H:%M:%S"))


def test_a_blog_lists_its_tags_and_filters_its_articles_by_one(gql, blog):
    services.article_create(blog=blog, title="One", tags=["Garden"])
    services.article_create(blog=blog, title="Two", tags=["Garden", "Kitchen"])
    services.article_create(blog=blog, title="Three")

    data = gql.data(BLOG, {"id": blog.pk, "tag": "kitchen"})["blog"]
    assert data["tags"] == [
        {"name": "Garden", "slug": "garden", "articleCount": 2},
        {"name": "Kitchen", "slug": "kitchen", "articleCount": 1},
    ]
    assert data["articles"] == {
        "count": 1,
        "items": [{"title": "Two", "tags": ["Garden", "Kitchen"]}],
    }
    everything = gql.data(BLOG, {"id": blog.pk})["blog"]["articles"]
    assert everything["count"] == 3

    response = gql.post(BLOG, {"id": blog.pk, "tag": "Not A Slug"})
    assert "tag" in response.json()["errors"][0]["message"]
