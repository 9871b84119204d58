"""The admin as an editor uses it: every list and change page renders; actions go through the
services."""

from __future__ import annotations

import re

import pytest

from articles import services
from articles.models import Article
from blogs.models import AccessToken, Blog


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def content(blog, alice, article):
    comment = services.comment_create(article=article, author=alice, text="First!")
    gone = services.article_create(blog=blog, title="Soon gone")
    services.article_delete(article=gone)
    from blogs.services import token_issue

    token, _ = token_issue(user=alice, name="laptop")
    return {"blog": blog, "article": article, "comment": comment, "gone": gone, "token": token}


@pytest.mark.parametrize(
    "path",
    [
        "/admin/",
        "/admin/blogs/blog/",
        "/admin/blogs/blog/{blog}/change/",
        "/admin/blogs/blog/add/",
        "/admin/articles/article/",
        "/admin/articles/article/?state=deleted",
        "/admin/articles/article/?q=First",
        "/admin/articles/article/{article}/change/",
        "/admin/articles/article/{gone}/change/",
        "/admin/articles/article/add/",
        "/admin/articles/comment/",
        "/admin/articles/comment/{comment}/change/",
        "/admin/blogs/accesstoken/",
        "/admin/blogs/accesstoken/add/",
        "/admin/blogs/accesstoken/{token}/change/",
    ],
)
def test_every_admin_page_renders_for_the_editor(editor_client, content, path):
    url = path.format(**{key: obj.pk for key, obj in content.items()})
    response = editor_client.get(url)
    assert response.status_code == 200, url


def test_deleted_articles_are_listed_as_such(editor_client, content):
    page = editor_client.get("/admin/articles/article/?state=deleted").content.decode()
    assert "Soon gone" in page
    assert "First post" not in page


def test_lock_and_unlock_actions(editor_client, content):
    article = content["article"]
    response = editor_client.post(
        "/admin/articles/article/",
        {"action": "lock_articles", "_selected_action": [article.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert Article.objects.get(pk=article.pk).locked
    editor_client.post(
        "/admin/articles/article/",
        {"action": "unlock_articles", "_selected_action": [article.pk]},
    )
    assert not Article.objects.get(pk=article.pk).locked


def test_deleting_from_the_admin_leaves_a_tombstone_and_keeps_the_count(editor_client, content):
    article, blog = content["article"], content["blog"]
    editor_client.post(
        "/admin/articles/article/",
        {"action": "delete_articles", "_selected_action": [article.pk]},
    )
    assert Article.objects.get(pk=article.pk).is_deleted
    assert (
        Blog.objects.get(pk=blog.pk).article_count
        == Article.objects.live().filter(blog=blog).count()
    )


def test_editing_an_article_in_the_admin_bumps_its_version(editor_client, content):
    article = content["article"]
    response = editor_client.post(
        f"/admin/articles/article/{article.pk}/change/",
        {"title": "Edited by the editor", "content": ""},
    )
    assert response.status_code == 302
    stored = Article.objects.get(pk=article.pk)
    assert stored.title == "Edited by the editor"
    assert stored.content is None
    assert stored.version == article.version + 1


def test_a_locked_article_cannot_be_edited_in_the_admin(editor_client, content):
    article = services.article_lock(article=content["article"])
    response = editor_client.post(
        f"/admin/articles/article/{article.pk}/change/", {"title": "Sneaky", "content": ""}
    )
    assert response.status_code == 200
    assert "locked" in response.content.decode()
    assert Article.objects.get(pk=article.pk).title == "First post"


def test_adding_an_article_in_the_admin_counts_it(editor_client, content):
    blog = content["blog"]
    before = Blog.objects.get(pk=blog.pk).article_count
    response = editor_client.post(
        "/admin/articles/article/add/", {"blog": blog.pk, "title": "From the admin", "content": "x"}
    )
    assert response.status_code == 302
    assert Blog.objects.get(pk=blog.pk).article_count == before + 1


def test_archive_action(editor_client, content):
    blog = content["blog"]
    editor_client.post(
        "/admin/blogs/blog/", {"action": "archive_blogs", "_selected_action": [blog.pk]}
    )
    assert Blog.objects.get(pk=blog.pk).archived


def test_issuing_a_token_in_the_admin_shows_it_once_without_a_cookie(editor_client, alice, blog):
    response = editor_client.post(
        "/admin/blogs/accesstoken/add/", {"user": alice.pk, "name": "from admin"}
    )
    assert response.status_code == 200
    page = response.content.decode()
    shown = re.search(r'<code id="issued-token">(\S+)</code>', page)
    assert shown, page
    plain = shown.group(1)
    token = AccessToken.objects.matching(plain)
    assert token is not None and token.user == alice and token.name == "from admin"
    assert "no-store" in response["Cache-Control"]
    # Not in a cookie (the messages cookie is signed, not encrypted), nor on any later page.
    assert all(plain not in morsel.value for morsel in response.cookies.values())
    assert "messages" not in response.cookies
    for later in ("/admin/blogs/accesstoken/", f"/admin/blogs/accesstoken/{token.pk}/change/"):
        assert plain not in editor_client.get(later).content.decode()
    # And it is a working token.
    write = editor_client.post(
        f"/api/v1.2/blogs/{blog.pk}/articles",
        {"title": "Written with the admin's token"},
        content_type="application/json",
        headers={"X-Access-Token": plain},
    )
    assert write.status_code == 201


def test_the_token_form_finds_the_user_by_name(editor_client, alice, bob):
    response = editor_client.get(
        "/admin/autocomplete/",
        {"app_label": "blogs", "model_name": "accesstoken", "field_name": "user", "term": "ali"},
    )
    assert response.status_code == 200
    assert response.json()["results"] == [{"id": str(alice.pk), "text": "alice"}]
    form = editor_client.get("/admin/blogs/accesstoken/add/").content.decode()
    assert "admin-autocomplete" in form


@pytest.mark.parametrize("state", ["locked", "archived"])
def test_deleting_a_refused_article_from_its_delete_page_tells_the_editor(
    editor_client, content, state
):
    article = content["article"]
    if state == "locked":
        services.article_lock(article=article)
    else:
        Blog.objects.filter(pk=article.blog_id).update(archived=True)
    response = editor_client.post(
        f"/admin/articles/article/{article.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert any("was not deleted" in message for message in shown), shown
    assert not Article.objects.get(pk=article.pk).is_deleted


def test_revoke_action(editor_client, content):
    token = content["token"]
    editor_client.post(
        "/admin/blogs/accesstoken/", {"action": "revoke_tokens", "_selected_action": [token.pk]}
    )
    assert AccessToken.objects.get(pk=token.pk).revoked


def test_comments_are_listed_with_their_text(editor_client, content):
    page = editor_client.get("/admin/articles/comment/").content.decode()
    assert "First!" in page
