"""Drafts and their previews are bounded as articles are (issue 40, point 4): a draft whose
Markdown cannot be rendered within the budget is refused (422, nothing written), and a preview
of one stored before the bound shows it as text."""

from __future__ import annotations

import logging

import pytest

from drafts.models import Draft
from tests.drafts.test_drafts_api import create, drafts_url, preview_link
from tests.rest.conftest import body
from tests.support.pathological_markdown import PATTERNS, at_size

BROWSER = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture(autouse=True)
def small_budget(settings) -> None:
    settings.MARKDOWN_RENDER_BUDGET_MS = 100


@pytest.fixture
def bomb(settings) -> str:
    return at_size(PATTERNS["nested brackets ["], settings.MAX_BODY_BYTES)


def assert_refused(response) -> None:
    assert response.status_code == 422, response.content[:500]
    problem = body(response)
    assert problem["type"].endswith("/docs/problems/content-too-complex")
    assert problem["errors"]["content"]


def test_a_pathological_draft_is_refused_and_not_written(api, blog, alice_token, bomb):
    payload = {"title": "Bomb", "content": bomb, "contentFormat": "markdown"}
    assert_refused(api.write("POST", drafts_url(blog), payload, token=alice_token))
    assert not Draft.objects.exists()

    # The same content as text is only text.
    assert create(api, blog, alice_token, content=bomb).status_code == 201


def test_a_draft_replaced_with_pathological_markdown_is_refused(api, blog, alice_token, bomb):
    draft = body(create(api, blog, alice_token))
    payload = {"title": "Bomb", "content": bomb, "contentFormat": "markdown"}
    response = api.write("PUT", draft["_links"]["self"]["href"], payload, token=alice_token)
    assert_refused(response)
    assert Draft.objects.get().title == "Tomorrow's post"


def test_a_preview_of_markdown_stored_before_the_bound_shows_it_as_text(
    api, blog, alice_token, bomb, caplog
):
    draft = body(create(api, blog, alice_token))
    Draft.objects.filter(pk=draft["id"]).update(content=bomb, content_format="markdown")
    link = preview_link(api, draft, alice_token)

    with caplog.at_level(logging.WARNING, logger="articles.content"):
        page = api.get(link["href"], headers=BROWSER)
    assert page.status_code == 200
    assert f"<p>{bomb}</p>" in page.content.decode()
    assert any("render budget" in r.getMessage() for r in caplog.records)


def test_a_due_draft_whose_markdown_is_over_the_budget_is_unscheduled_not_published(
    blog, alice, bomb
):
    """Stored before the bound, such a draft cannot be published: the scheduler takes it off the
    schedule once, as any draft publishing refuses, instead of spending the budget every sweep."""
    from django.utils import timezone

    from articles.models import Article
    from drafts import publishing

    draft = Draft.objects.create(
        blog=blog,
        author=alice,
        title="Bomb on time",
        content=bomb,
        content_format="markdown",
        publish_at=timezone.now() - timezone.timedelta(seconds=1),
    )

    assert publishing.sweep() == 0
    assert not Article.objects.exists()
    draft.refresh_from_db()
    assert (draft.published_at, draft.publish_at) == (None, None)
    assert publishing.sweep() == 0
