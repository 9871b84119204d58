"""No write reaches another author's blog: every write route, refused tokens, forged paths."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from articles import services as article_services
from articles.models import Article, Comment
from blogs import services as blog_services
from blogs.models import AccessToken

API = "/api/v1.2"


def send(client, method: str, path: str, token: str | None, body: dict | None = None):
    headers = {"HTTP_ACCEPT": "application/hal+json"}
    if token is not None:
        headers["HTTP_X_ACCESS_TOKEN"] = token
    if body is None:
        return client.generic(method, path, **headers)
    return client.generic(
        method, path, data=json.dumps(body), content_type="application/json", **headers
    )


@pytest.fixture
def alices_comment(article, alice):
    return article_services.comment_create(article=article, author=alice, text="Mine")


def snapshot(blog) -> tuple:
    """Everything a write could change in the blog: articles, comments, counters."""
    blog.refresh_from_db()
    articles = tuple(
        Article.objects.filter(blog=blog)
        .order_by("pk")
        .values_list("pk", "title", "content", "version", "deleted_at")
    )
    comments = tuple(
        Comment.objects.filter(article__blog=blog).order_by("pk").values_list("pk", "text")
    )
    return articles, comments, blog.article_count, blog.revision


def article_routes(blog, article, comment) -> list[tuple[str, str, dict | None]]:
    base = f"{API}/blogs/{blog.pk}/articles"
    return [
        ("POST", base, {"title": "Intruder's article", "content": "x"}),
        ("PUT", f"{base}/{article.pk}", {"title": "Defaced", "content": "x"}),
        ("DELETE", f"{base}/{article.pk}", None),
        ("DELETE", f"{base}/{article.pk}/comments/{comment.pk}", None),
    ]


ROUTE_IDS = ["post-article", "put-article", "delete-article", "delete-comment"]


@pytest.mark.parametrize("route", range(4), ids=ROUTE_IDS)
@pytest.mark.parametrize("who", ["outsider", "bob"])
def test_a_user_without_rights_on_the_blog_gets_403_and_nothing_is_written(
    client, request, blog, other_blog, article, alices_comment, token_for, route, who
):
    token = token_for(request.getfixturevalue(who))
    method, path, body = article_routes(blog, article, alices_comment)[route]
    before = snapshot(blog)
    response = send(client, method, path, token, body)
    assert response.status_code == 403, response.content[:300]
    assert response["Content-Type"].startswith("application/problem+json")
    assert snapshot(blog) == before


@pytest.mark.parametrize("route", range(4), ids=ROUTE_IDS)
def test_an_editor_with_the_permissions_may_write_so_the_403s_are_about_rights(
    client, blog, article, alices_comment, editor, token_for, route
):
    method, path, body = article_routes(blog, article, alices_comment)[route]
    response = send(client, method, path, token_for(editor), body)
    assert response.status_code in {200, 201, 204}, response.content[:300]


def test_anyone_with_a_valid_token_may_comment_but_only_as_themselves(
    client, blog, article, outsider, token_for
):
    # The contract lets any valid token comment; the author is always the token's user.
    response = send(
        client,
        "POST",
        f"{API}/blogs/{blog.pk}/articles/{article.pk}/comments",
        token_for(outsider),
        {"text": "Nice post", "author": "alice"},
    )
    assert response.status_code == 201
    assert response.json()["author"] == "outsider"
    assert Comment.objects.get().author == outsider


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_an_article_cannot_be_reached_through_a_blog_the_writer_owns(
    client, blog, other_blog, article, bob, token_for, method
):
    # bob writes in other_blog; alice's article must not be reachable under other_blog's path.
    before = snapshot(blog)
    response = send(
        client,
        method,
        f"{API}/blogs/{other_blog.pk}/articles/{article.pk}",
        token_for(bob),
        {"title": "Moved in"} if method == "PUT" else None,
    )
    assert response.status_code == 404
    assert snapshot(blog) == before


def test_a_comment_cannot_be_deleted_through_another_articles_path(
    client, blog, other_blog, article, alices_comment, bob, token_for
):
    bobs_article = article_services.article_create(blog=other_blog, title="Bob's")
    response = send(
        client,
        "DELETE",
        f"{API}/blogs/{other_blog.pk}/articles/{bobs_article.pk}/comments/{alices_comment.pk}",
        token_for(bob),
    )
    assert response.status_code == 404
    assert Comment.objects.filter(pk=alices_comment.pk).exists()


def expired_token(user) -> str:
    token, plain = blog_services.token_issue(
        user=user, name="expiring", expires_at=timezone.now() + timedelta(days=1)
    )
    AccessToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    return plain


def revoked_token(user) -> str:
    token, plain = blog_services.token_issue(user=user, name="revoked")
    blog_services.token_revoke(token=token)
    return plain


TOKEN_STATES = {
    "expired": expired_token,
    "revoked": revoked_token,
    "unknown": lambda user: "x" * 43,
    "missing": lambda user: None,
}


@pytest.mark.parametrize("state", TOKEN_STATES)
@pytest.mark.parametrize("route", range(5), ids=[*ROUTE_IDS, "post-comment"])
def test_expired_revoked_unknown_and_missing_tokens_are_refused_on_every_write(
    client, blog, article, alices_comment, alice, state, route
):
    routes = [
        *article_routes(blog, article, alices_comment),
        ("POST", f"{API}/blogs/{blog.pk}/articles/{article.pk}/comments", {"text": "hi"}),
    ]
    method, path, body = routes[route]
    token = TOKEN_STATES[state](alice)
    before = snapshot(blog)
    response = send(client, method, path, token, body)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("X-Access-Token")
    assert snapshot(blog) == before
