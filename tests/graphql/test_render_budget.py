"""GraphQL's contentHtml and excerpt are bounded as REST's are (issue 40, point 4): content
stored before the render budget is answered as text, without an error."""

from __future__ import annotations

import logging

from articles import services as article_services
from articles.content import render_html
from articles.models import Article
from tests.support.pathological_markdown import PATTERNS, at_size

ARTICLE = """query ($blogId: ID!, $id: ID!) {
  article(blogId: $blogId, id: $id) { contentHtml excerpt }
}"""


def test_content_html_of_pathological_markdown_is_answered_as_text(gql, blog, settings, caplog):
    settings.MARKDOWN_RENDER_BUDGET_MS = 100
    content = at_size(PATTERNS["image openers !["], settings.MAX_BODY_BYTES)
    article = article_services.article_create(blog=blog, title="Stored before", content="x")
    Article.objects.filter(pk=article.pk).update(content=content, content_format="markdown")

    with caplog.at_level(logging.WARNING, logger="articles.content"):
        data = gql.data(ARTICLE, {"blogId": blog.pk, "id": article.pk})["article"]
    assert data["contentHtml"] == render_html(content, "text") == f"<p>{content}</p>"
    assert data["excerpt"].startswith("![![")
    assert any("render budget" in r.getMessage() for r in caplog.records)
