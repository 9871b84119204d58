"""The DRF peer (bench/peer/) answers the contract's writes as the service does: the same bodies
and ETags, 201 with Location, 412 on a stale If-Match, 401/403 by the token, 404/410."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings

from articles import services as article_services
from articles.etags import article_etag
from articles.models import Article, Comment
from bench.peer import settings as peer_settings
from bench.peer.views import ArticleSerializer, PreconditionFailed

pytestmark = pytest.mark.django_db

API = "/api/v1.2"
HAL = {"Accept": "application/hal+json"}


@pytest.fixture
def client() -> Client:
    return Client()


@pytest.fixture
def alice_token(alice, token_for) -> str:
    return token_for(alice)


@pytest.fixture
def bob_token(bob, token_for) -> str:
    return token_for(bob)


def the_peer() -> override_settings:
    """While in effect, the test client talks to the peer: its URLs, middleware (none) and DRF
    settings."""
    return override_settings(
        ROOT_URLCONF=peer_settings.ROOT_URLCONF,
        MIDDLEWARE=peer_settings.MIDDLEWARE,
        REST_FRAMEWORK=peer_settings.REST_FRAMEWORK,
    )


@pytest.fixture
def peer():
    with the_peer():
        yield


def write(client, method, path, body, *, token=None, **headers):
    if token is not None:
        headers["X-Access-Token"] = token
    return getattr(client, method)(
        path, data=json.dumps(body), content_type="application/json", headers={**HAL, **headers}
    )


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def test_an_article_reads_as_the_services_with_the_same_etag(client, article):
    service = client.get(article_url(article), headers=HAL)
    with the_peer():
        peer = client.get(article_url(article), headers=HAL)

    assert peer.status_code == 200
    assert peer["Content-Type"] == "application/hal+json"
    assert peer.json() == service.json()
    assert peer["ETag"] == service["ETag"]


def test_a_put_with_the_current_etag_answers_what_the_service_then_reads(
    client, article, alice_token
):
    with the_peer():
        etag = client.get(article_url(article), headers=HAL)["ETag"]
        put = write(
            client,
            "put",
            article_url(article),
            {"title": "New", "content": "Two"},
            token=alice_token,
            **{"If-Match": etag},
        )

    assert put.status_code == 200
    article.refresh_from_db()
    assert (article.title, article.content, article.version) == ("New", "Two", 2)
    assert put["ETag"] == article_etag(article) != etag
    service = client.get(article_url(article), headers=HAL)
    assert put.json() == service.json()
    assert put["ETag"] == service["ETag"]


def test_a_stale_if_match_is_412_and_writes_nothing(peer, client, article, alice_token):
    stale = client.get(article_url(article), headers=HAL)["ETag"]
    first = write(
        client,
        "put",
        article_url(article),
        {"title": "One"},
        token=alice_token,
        **{"If-Match": stale},
    )

    second = write(
        client,
        "put",
        article_url(article),
        {"title": "Two"},
        token=alice_token,
        **{"If-Match": stale},
    )

    assert first.status_code == 200
    assert "content" not in first.json()  # a whole replace: no content, none kept
    assert second.status_code == 412
    article.refresh_from_db()
    assert (article.title, article.content, article.version) == ("One", None, 2)


def test_a_put_that_loses_the_race_after_the_check_is_412(rf, article):
    article = Article.objects.select_related("blog").get(pk=article.pk)
    Article.objects.filter(pk=article.pk).update(version=5)  # another write meanwhile
    serializer = ArticleSerializer(
        article, data={"title": "Late"}, context={"request": rf.put("/")}
    )
    assert serializer.is_valid()

    with pytest.raises(PreconditionFailed):
        serializer.save()

    assert Article.objects.get(pk=article.pk).title == "First post"


def test_a_post_is_201_with_location_etag_a_free_slug_and_the_count(
    peer, client, blog, alice_token
):
    url = f"{API}/blogs/{blog.pk}/articles"
    body = {"title": "Posted here", "content": "*Hi*", "contentFormat": "markdown"}

    first = write(client, "post", url, body, token=alice_token)
    second = write(client, "post", url, body, token=alice_token)

    assert (first.status_code, second.status_code) == (201, 201)
    created = Article.objects.select_related("blog").get(pk=second.json()["id"])
    assert second["Location"] == f"http://testserver{article_url(created)}"
    assert second["ETag"] == article_etag(created)
    assert first.json()["slug"] == "posted-here"
    assert second.json()["slug"] == created.slug == f"posted-here-{created.pk}"
    assert second.json()["contentHtml"] == "<p><em>Hi</em></p>\n"  # as articles.content makes it
    assert second.json()["tags"] == []
    assert "publishedAt" in second.json()
    blog.refresh_from_db()
    assert blog.article_count == 2


def test_a_comment_is_201_with_location_and_its_author(peer, client, article, bob_token):

    answer = write(
        client, "post", f"{article_url(article)}/comments", {"text": "Hi"}, token=bob_token
    )

    assert answer.status_code == 201
    comment = Comment.objects.get()
    self_href = f"http://testserver{article_url(article)}/comments/{comment.pk}"
    assert answer["Location"] == self_href
    assert answer.json() == {
        "id": comment.pk,
        "author": "bob",
        "text": "Hi",
        "_links": {
            "curies": [
                {"name": "doc", "href": "http://testserver/docs/rels/{rel}", "templated": True}
            ],
            "self": {"href": self_href},
            "doc:article": {"href": f"http://testserver{article_url(article)}"},
        },
    }


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_writes_without_a_valid_token_are_401(peer, client, article, token):
    writes = [
        ("post", f"{API}/blogs/{article.blog_id}/articles", {"title": "T"}),
        ("put", article_url(article), {"title": "T"}),
        ("post", f"{article_url(article)}/comments", {"text": "T"}),
    ]

    for method, path, body in writes:
        answer = write(client, method, path, body, token=token)
        assert answer.status_code == 401, path
        assert answer["WWW-Authenticate"] == 'X-Access-Token realm="api"'

    assert Comment.objects.count() == 0
    assert Article.objects.count() == 1


def test_article_writes_need_an_author_of_the_blog(peer, client, article, bob_token):

    post = write(
        client, "post", f"{API}/blogs/{article.blog_id}/articles", {"title": "T"}, token=bob_token
    )
    put = write(client, "put", article_url(article), {"title": "T"}, token=bob_token)

    assert (post.status_code, put.status_code) == (403, 403)
    assert Article.objects.get().title == "First post"


def test_a_deleted_article_is_410_and_a_missing_one_404(peer, client, article, alice_token):
    article_services.article_delete(article=article)
    missing = f"{API}/blogs/{article.blog_id}/articles/{article.pk + 1}"

    assert client.get(article_url(article), headers=HAL).status_code == 410
    assert (
        write(client, "put", article_url(article), {"title": "T"}, token=alice_token).status_code
        == 410
    )
    comment = write(
        client, "post", f"{article_url(article)}/comments", {"text": "T"}, token=alice_token
    )
    assert comment.status_code == 410
    assert client.get(missing, headers=HAL).status_code == 404
    assert write(client, "put", missing, {"title": "T"}, token=alice_token).status_code == 404
