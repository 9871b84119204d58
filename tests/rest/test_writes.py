"""POST, PUT and DELETE of articles, and what bad bodies get."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from articles import services
from articles.exceptions import BlogArchived, VersionConflict
from articles.models import Article
from blogs.models import AccessToken, Blog
from tests.rest.conftest import API, body
from tests.support.queries import content_queries

ORIGIN = "http://testserver"


def articles_url(blog) -> str:
    return f"{API}/blogs/{blog.pk}/articles"


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def test_post_creates_the_article_with_location_etag_and_last_modified(api, blog, alice_token):
    response = api.write(
        "POST", articles_url(blog), {"title": "New", "content": "Text"}, token=alice_token
    )

    assert response.status_code == 201
    created = Article.objects.get()
    data = body(response)
    assert (data["id"], data["title"], data["content"]) == (created.pk, "New", "Text")
    assert response["Location"] == f"{ORIGIN}{article_url(created)}"
    assert data["_links"]["self"]["href"] == response["Location"]
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")
    assert api.get(response["Location"]).status_code == 200


def test_post_accepts_hal_json_bodies_and_content_null(api, blog, alice_token):
    response = api.write(
        "POST",
        articles_url(blog),
        {"title": "HAL", "content": None},
        token=alice_token,
        content_type="application/hal+json",
    )

    assert response.status_code == 201
    assert "content" not in body(response)
    assert Article.objects.get().content is None


def test_put_replaces_the_article_and_ignores_the_id_in_the_body(api, article, alice_token):
    before = api.get(article_url(article))

    response = api.write(
        "PUT",
        article_url(article),
        {"id": 424242, "title": "Renamed", "content": "New text", "extra": [1, 2]},
        token=alice_token,
    )

    assert response.status_code == 200
    data = body(response)
    assert (data["id"], data["title"], data["content"]) == (article.pk, "Renamed", "New text")
    assert response["ETag"] != before["ETag"]
    assert not Article.objects.filter(pk=424242).exists()
    assert Article.objects.get(pk=article.pk).title == "Renamed"


def test_put_without_content_removes_it(api, article, alice_token):
    response = api.write("PUT", article_url(article), {"title": "No text"}, token=alice_token)

    assert response.status_code == 200
    assert "content" not in body(response)
    assert Article.objects.get(pk=article.pk).content is None


def test_put_on_a_missing_article_is_404_and_creates_nothing(api, blog, alice_token):
    response = api.write(
        "PUT", f"{articles_url(blog)}/777", {"title": "Would be new"}, token=alice_token
    )

    assert response.status_code == 404
    assert not Article.objects.exists()


def test_delete_is_204_without_body_and_with_the_blog_link_header(api, article, alice_token):
    response = api.write("DELETE", article_url(article), token=alice_token)

    assert response.status_code == 204
    assert response.content == b""
    assert response["Link"] == (
        f'<{ORIGIN}{API}/blogs/{article.blog_id}>; rel="{ORIGIN}/docs/rels/blog"; '
        'title="Alice\'s blog"'
    )


def test_delete_with_prefer_representation_is_200_with_the_links(api, article, alice_token):
    response = api.write(
        "DELETE",
        article_url(article),
        token=alice_token,
        headers={"Prefer": "return=representation"},
    )

    assert response.status_code == 200
    assert response["Preference-Applied"] == "return=representation"
    assert body(response) == {
        "_links": {
            "curies": [{"name": "doc", "href": f"{ORIGIN}/docs/rels/{{rel}}", "templated": True}],
            "doc:blog": {"href": f"{ORIGIN}{API}/blogs/{article.blog_id}", "title": "Alice's blog"},
        }
    }


def test_a_non_ascii_blog_title_goes_in_title_star(api, article, alice_token):
    blog = Blog.objects.get(pk=article.blog_id)
    blog.title = "Alicë"
    blog.save(update_fields=["title"])

    response = api.write("DELETE", article_url(article), token=alice_token)

    assert response["Link"].endswith("title*=UTF-8''Alic%C3%AB")


def test_a_deleted_article_is_gone_for_get_put_and_delete(api, article, alice_token):
    api.write("DELETE", article_url(article), token=alice_token)

    assert api.get(article_url(article)).status_code == 410
    put = api.write("PUT", article_url(article), {"title": "Back?"}, token=alice_token)
    assert put.status_code == 410
    assert body(put)["status"] == 410
    assert api.write("DELETE", article_url(article), token=alice_token).status_code == 410
    assert api.get(f"{article_url(article)}/comments").status_code == 410
    assert body(api.get(articles_url(article.blog)))["totalArticles"] == 0


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "title"),
        ({"content": "no title"}, "title"),
        ({"title": ""}, "title"),
        ({"title": "   "}, "title"),
        ({"title": "x" * 201}, "title"),
        ({"title": 5}, "title"),
        ({"title": None}, "title"),
        ({"title": ["a"]}, "title"),
        ({"title": {"a": 1}}, "title"),
        ({"title": "ok", "content": 12}, "content"),
        ({"title": "ok", "content": True}, "content"),
        ({"title": "ok", "content": {"nested": "x"}}, "content"),
        ({"title": "nul\u0000byte"}, "title"),
        ({"title": "\ud800 lone surrogate"}, "title"),
    ],
)
def test_a_wrong_or_missing_field_is_422_naming_it(api, blog, alice_token, payload, field):
    raw = json.dumps(payload)  # \ud800 stays an escape: valid JSON, invalid text

    response = api.write("POST", articles_url(blog), raw, token=alice_token)

    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert field in body(response)["errors"]
    assert not Article.objects.exists()


def test_a_title_of_exactly_200_characters_is_accepted(api, blog, alice_token):
    response = api.write("POST", articles_url(blog), {"title": "x" * 200}, token=alice_token)

    assert response.status_code == 201


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        '{"title": "unterminated',
        "[1, 2, 3]",
        '"just a string"',
        "42",
        "null",
        '{"title": NaN}',
        "[" * 100_000 + "]" * 100_000,
        b"\xff\xfe\x00garbage",
    ],
)
def test_malformed_json_or_a_non_object_is_400(api, article, alice_token, raw):
    for method, url in (("POST", articles_url(article.blog)), ("PUT", article_url(article))):
        response = api.write(method, url, raw, token=alice_token)
        assert response.status_code == 400, (method, raw[:20])
        assert response["Content-Type"] == "application/problem+json"
    assert Article.objects.count() == 1
    assert Article.objects.get().version == 1


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded"]
)
def test_a_body_that_is_not_json_is_415(api, blog, alice_token, content_type):
    response = api.write(
        "POST", articles_url(blog), '{"title": "x"}', token=alice_token, content_type=content_type
    )

    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    assert not Article.objects.exists()


def test_writing_into_an_archived_blog_is_409(api, archived_blog, alice_token):
    article = Article.objects.create(blog=archived_blog, title="Kept")

    post = api.write("POST", articles_url(archived_blog), {"title": "x"}, token=alice_token)
    put = api.write("PUT", article_url(article), {"title": "x"}, token=alice_token)
    delete = api.write("DELETE", article_url(article), token=alice_token)

    for response in (post, put, delete):
        assert response.status_code == 409
        assert body(response)["type"].endswith("/docs/problems/blog-archived")
    assert Article.objects.get(pk=article.pk).title == "Kept"
    assert Article.objects.count() == 1


def test_a_locked_article_refuses_put_and_delete_with_423(api, article, alice_token):
    services.article_lock(article=article)

    put = api.write("PUT", article_url(article), {"title": "x"}, token=alice_token)
    delete = api.write("DELETE", article_url(article), token=alice_token)

    assert put.status_code == 423 and delete.status_code == 423
    assert body(put)["status"] == 423
    assert Article.objects.get(pk=article.pk).title == "First post"
    assert api.get(article_url(article)).status_code == 200


@pytest.mark.parametrize(
    "content_type",
    [
        "*/*",
        "application/*",
        "*/json",
        "application/json; charset=utf-7",
        "application/json; charset=latin-1",
    ],
)
def test_a_body_labelled_with_a_range_or_another_charset_is_415(
    api, blog, alice_token, content_type
):
    response = api.write(
        "POST",
        articles_url(blog),
        b'{"title": "+ADw-script+AD4-"}',
        token=alice_token,
        content_type=content_type,
    )
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    assert "UTF-8" in body(response)["detail"]
    assert not Article.objects.exists()


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8"])
def test_a_utf8_charset_is_accepted(api, blog, alice_token, charset):
    response = api.write(
        "POST",
        articles_url(blog),
        {"title": "Grüße"},
        token=alice_token,
        content_type=f"application/json; charset={charset}",
    )
    assert response.status_code == 201
    assert Article.objects.get().title == "Grüße"


def test_an_empty_body_is_400_for_every_write(api, article, alice_token):
    writes = [
        ("POST", articles_url(article.blog)),
        ("PUT", article_url(article)),
        ("POST", f"{article_url(article)}/comments"),
    ]
    for method, url in writes:
        response = api.write(method, url, b"", token=alice_token)
        assert response.status_code == 400, (method, url)
        assert response["Content-Type"] == "application/problem+json"
        assert "empty" in body(response)["detail"]
    assert Article.objects.get().version == 1
    assert Article.objects.count() == 1


@pytest.fixture
def used_token(alice_token) -> str:
    """alice's token, used a moment ago (its first use of the minute records the time)."""
    AccessToken.objects.update(last_used_at=timezone.now())
    return alice_token


def written_statements(queries) -> list[str]:
    """The statements of a request, without the savepoints of its transaction."""
    return [
        query["sql"].split()[0]
        for query in queries
        if "SAVEPOINT" not in query["sql"] and query["sql"].split()[0] not in ("BEGIN", "COMMIT")
    ]


def test_a_put_with_if_match_reads_once_and_writes_twice(api, article, used_token):
    etag = api.get(article_url(article))["ETag"]
    with content_queries(at_most=20) as captured:
        response = api.write(
            "PUT",
            article_url(article),
            {"title": "Counted"},
            token=used_token,
            headers={"If-Match": etag},
        )
    assert response.status_code == 200
    # The token; the article with its blog and the writer's authorship; the compare-and-set
    # UPDATE of the article; the blog's revision; the revision keeping the replaced state.
    assert written_statements(captured.captured_queries) == [
        "SELECT",
        "SELECT",
        "UPDATE",
        "UPDATE",
        "INSERT",
    ]


def test_a_post_reads_the_blog_and_authorship_in_one_query(api, blog, used_token):
    with content_queries(at_most=20) as captured:
        response = api.write("POST", articles_url(blog), {"title": "Counted"}, token=used_token)
    assert response.status_code == 201
    # The token; the blog with the authorship; the blog's count and lock; the slugs taken
    # among the title's candidates (issue 29); the article.
    assert written_statements(captured.captured_queries) == [
        "SELECT",
        "SELECT",
        "UPDATE",
        "SELECT",
        "INSERT",
    ]


def test_a_comment_reads_the_article_once_and_locks_it_for_the_insert(api, article, used_token):
    with content_queries(at_most=20) as captured:
        response = api.write(
            "POST", f"{article_url(article)}/comments", {"text": "Counted"}, token=used_token
        )
    assert response.status_code == 201
    # The token; the article with its blog; the article's row lock, which also says whether
    # the blog has webhook subscriptions (none here: no query for them); the comment. The
    # comment's constraints are the database's to check, not a query each.
    assert written_statements(captured.captured_queries) == [
        "SELECT",
        "SELECT",
        "SELECT",
        "INSERT",
    ]


def test_a_delete_with_if_match_reads_once_and_writes_twice(api, article, used_token):
    etag = api.get(article_url(article))["ETag"]
    with content_queries(at_most=20) as captured:
        response = api.write(
            "DELETE", article_url(article), None, token=used_token, headers={"If-Match": etag}
        )
    assert response.status_code == 204
    # ... the article's row lock, taken before the tombstone's time so that no comment being
    # written can be stamped after it (articles.services.article_delete) ... and the article's
    # revisions, which go with it.
    assert written_statements(captured.captured_queries) == [
        "SELECT",
        "SELECT",
        "SELECT",
        "UPDATE",
        "UPDATE",
        "DELETE",
    ]


def test_a_replace_from_a_stale_instance_is_a_conflict_only_when_conditional(article):
    stale = Article.objects.get(pk=article.pk)
    services.article_replace(article=article, title="Meanwhile")

    with pytest.raises(VersionConflict):
        services.article_replace(article=stale, title="Late", expected_version=stale.version)
    assert Article.objects.get(pk=article.pk).title == "Meanwhile"

    # Unconditional: the last writer wins, on top of the version it finds.
    replaced = services.article_replace(article=stale, title="Last")
    stored = Article.objects.get(pk=article.pk)
    assert (stored.title, stored.version) == ("Last", stale.version + 2)
    assert replaced.version == stored.version and replaced.title == "Last"


def test_a_write_to_an_article_of_an_archived_blog_changes_nothing(article):
    Blog.objects.filter(pk=article.blog_id).update(archived=True)
    before = Blog.objects.get(pk=article.blog_id).revision
    with pytest.raises(BlogArchived):
        services.article_replace(article=article, title="Refused")
    with pytest.raises(BlogArchived):
        services.article_delete(article=article)
    stored = Article.objects.get(pk=article.pk)
    assert (stored.title, stored.version, stored.deleted_at) == (
        article.title,
        article.version,
        None,
    )
    assert Blog.objects.get(pk=article.blog_id).revision == before
