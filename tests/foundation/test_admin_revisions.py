"""An article's history in the admin: each revision with who replaced it, when and what the
replace changed; reverting to one is an edit like any other (and keeps a revision in turn)."""

from __future__ import annotations

import re

import pytest
from lxml import html

from articles import services
from articles.models import Article, ArticleRevision


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def history_url(article) -> str:
    return f"/admin/articles/article/{article.pk}/history/"


def edit(editor_client, article, title: str, content: str = ""):
    response = editor_client.post(
        f"/admin/articles/article/{article.pk}/change/", {"title": title, "content": content}
    )
    assert response.status_code == 302, response.content[:500]


def rows(editor_client, article) -> list[list[str]]:
    response = editor_client.get(history_url(article))
    assert response.status_code == 200
    document = html.fromstring(response.content)
    return [
        [" ".join(cell.text_content().split()) for cell in row.xpath("./td")]
        for row in document.xpath("//table[@id='change-history']/tbody/tr")
    ]


def test_an_admin_edit_keeps_a_revision_made_by_the_editor(editor_client, editor, article):
    edit(editor_client, article, "Edited", "New text")

    revision = ArticleRevision.objects.get(id=article.pk)
    assert (revision.version, revision.title, revision.content) == (1, "First post", "Hello")
    assert revision.history_user == editor


def test_the_history_shows_each_revision_with_who_and_what_changed(editor_client, alice, article):
    services.article_replace(article=article, title="Second", content="Hello", actor=alice)
    edit(editor_client, Article.objects.get(pk=article.pk), "Third", "Changed text")

    history = rows(editor_client, article)
    # Newest first: the revision, its number, when, the kind, who replaced it, the reason, and
    # what that replace changed (from the kept state to the one that followed it).
    assert [row[0] for row in history] == ["Second", "First post"]
    assert [row[1] for row in history] == ["2", "1"]
    assert history[0][4] == "editor"
    assert "Content: Hello → Changed text" in history[0][6]
    assert "Title: Second → Third" in history[0][6]
    assert history[1][4] == "alice"
    assert history[1][6] == "Title: First post → Second"


def test_reverting_to_a_revision_restores_it_and_keeps_the_replaced_state(
    editor_client, editor, article
):
    edit(editor_client, article, "Vandalised", "spam")
    revision = ArticleRevision.objects.get(id=article.pk, version=1)
    url = f"/admin/articles/article/{article.pk}/history/{revision.history_id}/"

    page = editor_client.get(url)
    assert page.status_code == 200
    assert re.search(r"Revert", page.content.decode())
    assert 'value="First post"' in page.content.decode()
    response = editor_client.post(url, {"title": "First post", "content": "Hello"})

    assert response.status_code == 302
    stored = Article.objects.get(pk=article.pk)
    assert (stored.title, stored.content, stored.version) == ("First post", "Hello", 3)
    newest = ArticleRevision.objects.filter(id=article.pk).order_by("-version").first()
    assert (newest.version, newest.title, newest.history_user) == (2, "Vandalised", editor)


def test_a_locked_article_cannot_be_reverted(editor_client, article):
    edit(editor_client, article, "Second")
    services.article_lock(article=Article.objects.get(pk=article.pk))
    revision = ArticleRevision.objects.get(id=article.pk, version=1)

    response = editor_client.post(
        f"/admin/articles/article/{article.pk}/history/{revision.history_id}/",
        {"title": "First post", "content": "Hello"},
    )

    assert response.status_code == 200
    assert "locked" in response.content.decode()
    assert Article.objects.get(pk=article.pk).title == "Second"


def test_an_article_never_replaced_has_an_empty_history(editor_client, article):
    assert rows(editor_client, article) == []


def test_a_blog_deleted_in_the_admin_takes_the_revisions_along(editor_client, article):
    edit(editor_client, article, "Second")
    response = editor_client.post(f"/admin/blogs/blog/{article.blog_id}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not ArticleRevision.objects.exists()
