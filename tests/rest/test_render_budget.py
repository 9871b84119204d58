"""Every Markdown rendering is bounded (issue 40, point 4; docs/decisions/render-budget.md):
pathological Markdown at the size limit is refused on a write (422 content-too-complex, nothing
written) or rendered; content stored before the bound is shown as text on a read, never a 500.

The budget is lowered here: the same renders stop sooner, and the table stays fast. How long
the default budget lets the worst of them run is measured by bench/render_limit.py."""

from __future__ import annotations

import logging

import pytest
from lxml import etree

from articles import services as article_services
from articles.content import render_html
from articles.models import Article
from tests.rest.conftest import API, body
from tests.support.pathological_markdown import PATTERNS, REFUSED, at_size

ATOM = "{http://www.w3.org/2005/Atom}"
BUDGET_MS = 100


@pytest.fixture(autouse=True)
def small_budget(settings) -> None:
    settings.MARKDOWN_RENDER_BUDGET_MS = BUDGET_MS


def over_budget_logged(caplog) -> bool:
    return any(
        r.name == "articles.content" and "render budget" in r.getMessage() for r in caplog.records
    )


def stored_markdown(blog, content: str) -> Article:
    """An article whose content was stored before the bound (no check on the way in)."""
    article = article_services.article_create(blog=blog, title="Stored before", content="x")
    Article.objects.filter(pk=article.pk).update(content=content, content_format="markdown")
    return article


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pathological_markdown_at_the_size_limit_is_refused_or_rendered(
    api, blog, alice_token, settings, name
):
    content = at_size(PATTERNS[name], settings.MAX_BODY_BYTES)
    payload = {"title": name, "content": content, "contentFormat": "markdown"}
    response = api.write("POST", f"{API}/blogs/{blog.pk}/articles", payload, token=alice_token)

    if response.status_code == 201:
        assert name not in REFUSED
        assert body(response)["contentHtml"]
        return
    assert response.status_code == 422, response.content[:500]
    problem = body(response)
    assert problem["type"].endswith("/docs/problems/content-too-complex")
    assert f"{BUDGET_MS} ms" in problem["detail"]
    assert problem["errors"]["content"] == [problem["detail"]]
    assert not Article.objects.filter(blog=blog).exists()


def test_a_put_that_makes_the_content_pathological_is_refused_and_changes_nothing(
    api, blog, alice_token, settings
):
    article = article_services.article_create(blog=blog, title="Kept", content="[" * 1000)
    url = f"{API}/blogs/{blog.pk}/articles/{article.pk}"
    bomb = at_size(PATTERNS["nested brackets ["], settings.MAX_BODY_BYTES)

    payload = {"title": "New", "content": bomb, "contentFormat": "markdown"}
    response = api.write("PUT", url, payload, token=alice_token)
    assert response.status_code == 422
    assert body(response)["type"].endswith("/content-too-complex")
    article.refresh_from_db()
    assert (article.title, article.content_format, article.version) == ("Kept", "text", 1)


def test_content_stored_before_the_bound_is_read_as_text(api, blog, settings, caplog):
    content = at_size(PATTERNS["nested brackets ["], settings.MAX_BODY_BYTES)
    article = stored_markdown(blog, content)

    with caplog.at_level(logging.WARNING, logger="articles.content"):
        response = api.get(f"{API}/blogs/{blog.pk}/articles/{article.pk}")
    assert response.status_code == 200
    data = body(response)
    assert data["contentHtml"] == render_html(content, "text") == f"<p>{content}</p>"
    assert data["excerpt"].startswith("[[[")
    assert over_budget_logged(caplog)


def test_the_feed_renders_within_the_budget(api, blog, settings, caplog):
    # The feed renders contents up to PAGE_CONTENT_MAX_CHARS: a budget of 1 ms stops that one.
    settings.MARKDOWN_RENDER_BUDGET_MS = 1
    content = PATTERNS["nested brackets ["](settings.PAGE_CONTENT_MAX_CHARS)
    stored_markdown(blog, content)

    with caplog.at_level(logging.WARNING, logger="articles.content"):
        response = api.get(
            f"{API}/blogs/{blog.pk}/feed", headers={"Accept": "application/atom+xml"}
        )
    assert response.status_code == 200
    (entry,) = etree.fromstring(response.content).findall(f"{ATOM}entry")
    assert entry.find(f"{ATOM}content").text == f"<p>{content}</p>"
    assert over_budget_logged(caplog)


def test_ampersands_and_tildes_come_through_the_sanitiser_as_written():
    # The sanitiser sees `&amp;` as `~1` (articles.content._clean): what comes back is exact.
    assert render_html("a & b ~1 ~0 ~ [x](https://e.example/?a=1&b=~2)", "markdown") == (
        '<p>a &amp; b ~1 ~0 ~ <a href="https://e.example/?a=1&amp;b=~2"'
        ' rel="noopener noreferrer nofollow">x</a></p>\n'
    )
    assert render_html("&&~1&amp;\n~0", "text") == "<p>&amp;&amp;~1&amp;amp;<br>~0</p>"


def test_a_run_of_emphasis_markers_longer_than_any_emphasis_is_text():
    run = "*" * 65
    assert render_html(f"{run}a{run}", "markdown") == f"<p>{run}a{run}</p>\n"
    assert render_html("***a***", "markdown") == "<p><em><strong>a</strong></em></p>\n"
