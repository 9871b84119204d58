"""X-Access-Token: 401 with WWW-Authenticate, 403 without rights, rights from authorship or
the Django permissions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from articles import services
from articles.models import Article, Comment
from blogs import services as blog_services
from blogs.models import AccessToken
from tests.rest.conftest import API, body

CHALLENGE = 'X-Access-Token realm="api"'


def writes(article):
    base = f"{API}/blogs/{article.blog_id}/articles"
    return [
        ("POST", base, {"title": "x"}),
        ("PUT", f"{base}/{article.pk}", {"title": "x"}),
        ("DELETE", f"{base}/{article.pk}", None),
    ]


def test_a_write_without_token_is_401_with_the_challenge(api, article):
    for method, url, payload in writes(article):
        response = api.write(method, url, payload)
        assert response.status_code == 401, method
        assert response["WWW-Authenticate"] == CHALLENGE
        assert response["Content-Type"] == "application/problem+json"
        assert body(response)["status"] == 401


@pytest.mark.parametrize("kind", ["unknown", "revoked", "expired", "inactive user", "empty"])
def test_a_bad_token_is_401_with_the_challenge(api, article, alice, token_for, kind):
    token = token_for(alice)
    if kind == "unknown":
        token = token[:-4] + "AAAA"
    elif kind == "revoked":
        blog_services.token_revoke(token=AccessToken.objects.get())
    elif kind == "expired":
        AccessToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    elif kind == "inactive user":
        alice.is_active = False
        alice.save()
    elif kind == "empty":
        token = ""

    for method, url, payload in writes(article):
        response = api.write(method, url, payload, token=token)
        assert response.status_code == 401, (kind, method)
        assert response["WWW-Authenticate"] == CHALLENGE
    assert Article.objects.get(pk=article.pk).title == "First post"


def test_reads_need_no_token(api, article):
    assert api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}").status_code == 200


def test_a_valid_token_without_rights_on_the_blog_is_403(api, article, bob, token_for):
    token = token_for(bob)  # bob writes in his own blog only

    for method, url, payload in writes(article):
        response = api.write(method, url, payload, token=token)
        assert response.status_code == 403, method
        assert response["Content-Type"] == "application/problem+json"
    assert Article.objects.count() == 1


def test_an_editor_writes_through_the_django_permissions(api, article, editor, token_for):
    token = token_for(editor)

    for method, url, payload in writes(article):
        response = api.write(method, url, payload, token=token)
        assert response.status_code in (200, 201, 204), method


@pytest.mark.parametrize(
    ("permission", "method", "allowed"),
    [
        ("add_article", "POST", True),
        ("add_article", "PUT", False),
        ("change_article", "PUT", True),
        ("change_article", "DELETE", False),
        ("delete_article", "DELETE", True),
    ],
)
def test_each_permission_allows_only_its_own_method(
    api, article, outsider, token_for, permission, method, allowed
):
    from django.contrib.auth.models import Permission

    outsider.user_permissions.add(Permission.objects.get(codename=permission))
    token = token_for(outsider)
    _, url, payload = next(w for w in writes(article) if w[0] == method)

    response = api.write(method, url, payload, token=token)

    assert (response.status_code < 300) is allowed
    assert response.status_code in ((200, 201, 204) if allowed else (403,))


def test_a_successful_write_records_the_token_use(api, article, alice_token):
    api.write(
        "PUT",
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        {"title": "t"},
        token=alice_token,
    )

    assert AccessToken.objects.get().last_used_at is not None


def test_any_valid_token_may_comment_as_its_user(api, article, outsider, token_for):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"

    response = api.write("POST", url, {"text": "First!"}, token=token_for(outsider))

    assert response.status_code == 201
    data = body(response)
    assert data["author"] == "outsider" and data["text"] == "First!"
    assert response["Location"] == data["_links"]["self"]["href"]
    assert api.get(response["Location"]).status_code == 200
    assert api.write("POST", url, {"text": "anon"}).status_code == 401


@pytest.mark.parametrize(
    "payload", [{}, {"text": ""}, {"text": "  "}, {"text": 3}, {"text": "x" * 10_001}]
)
def test_a_bad_comment_is_422(api, article, alice_token, payload):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"

    response = api.write("POST", url, payload, token=alice_token)

    assert response.status_code == 422
    assert "text" in body(response)["errors"]
    assert not Comment.objects.exists()


def test_a_comment_of_10000_characters_is_accepted(api, article, alice_token):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"

    assert api.write("POST", url, {"text": "x" * 10_000}, token=alice_token).status_code == 201


def test_a_comment_is_deleted_by_its_author_or_a_blog_author_only(
    api, article, alice, bob, outsider, token_for
):
    mine = services.comment_create(article=article, author=outsider, text="mine")
    bobs = services.comment_create(article=article, author=bob, text="bob's")
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"

    assert api.write("DELETE", f"{url}/{bobs.pk}", token=token_for(outsider)).status_code == 403
    assert api.write("DELETE", f"{url}/{mine.pk}", token=token_for(outsider)).status_code == 204
    assert api.write("DELETE", f"{url}/{bobs.pk}", token=token_for(alice)).status_code == 204
    assert not Comment.objects.exists()
    assert api.write("DELETE", f"{url}/{bobs.pk}", token=token_for(alice)).status_code == 404


def test_commenting_in_an_archived_blog_is_409(api, archived_blog, alice_token):
    article = Article.objects.create(blog=archived_blog, title="Kept")
    url = f"{API}/blogs/{archived_blog.pk}/articles/{article.pk}/comments"

    assert api.write("POST", url, {"text": "hi"}, token=alice_token).status_code == 409


def test_a_read_ignores_whatever_token_it_carries(api, article):
    response = api.get(
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        headers={"X-Access-Token": "not-a-token"},
    )

    assert response.status_code == 200
    assert "WWW-Authenticate" not in response
