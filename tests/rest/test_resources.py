"""The resources' shapes: field names, link objects, curies, templated links."""

from __future__ import annotations

from articles import services
from tests.rest.conftest import API, body

ORIGIN = "http://testserver"
CURIES = [{"name": "doc", "href": f"{ORIGIN}/docs/rels/{{rel}}", "templated": True}]


def assert_links_are_objects(links: dict) -> None:
    for rel, value in links.items():
        items = value if rel == "curies" else [value]
        for item in items:
            assert isinstance(item, dict), rel
            assert isinstance(item["href"], str) and item["href"], rel
            assert None not in item.values(), rel


def test_api_root_links_to_the_blogs_and_a_templated_blog(api, db):
    response = api.get(f"{API}/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/hal+json"
    assert body(response)["_links"] == {
        "curies": CURIES,
        "self": {"href": f"{ORIGIN}{API}/"},
        "doc:blogs": {"href": f"{ORIGIN}{API}/blogs{{?pageIndex,pageSize}}", "templated": True},
        "doc:blog": {"href": f"{ORIGIN}{API}/blogs/{{id}}", "templated": True},
        "doc:search": {
            "href": f"{ORIGIN}{API}/articles{{?pageIndex,pageSize,q,sort,tag}}",
            "templated": True,
        },
    }


def test_blog_has_its_fields_and_a_templated_articles_link(api, blog):
    response = api.get(f"{API}/blogs/{blog.pk}")

    assert response.status_code == 200
    assert body(response) == {
        "id": blog.pk,
        "title": "Alice's blog",
        "description": "Notes from Alice",
        "_links": {
            "curies": CURIES,
            "self": {"href": f"{ORIGIN}{API}/blogs/{blog.pk}"},
            "doc:articles": {
                "href": f"{ORIGIN}{API}/blogs/{blog.pk}/articles{{?pageIndex,pageSize,q,sort,tag}}",
                "templated": True,
            },
            "alternate": {
                "href": f"{ORIGIN}{API}/blogs/{blog.pk}/feed",
                "type": "application/atom+xml",
                "title": "Alice's blog (Atom feed)",
            },
            "doc:webhooks": {
                "href": f"{ORIGIN}{API}/blogs/{blog.pk}/webhooks{{?pageIndex,pageSize}}",
                "templated": True,
            },
            "doc:drafts": {
                "href": f"{ORIGIN}{API}/blogs/{blog.pk}/drafts{{?pageIndex,pageSize}}",
                "templated": True,
            },
            "doc:tags": {
                "href": f"{ORIGIN}{API}/blogs/{blog.pk}/tags{{?pageIndex,pageSize}}",
                "templated": True,
            },
        },
    }


def test_article_links_to_itself_its_blog_with_title_and_its_comments(api, article):
    response = api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}")

    assert response.status_code == 200
    base = f"{ORIGIN}{API}/blogs/{article.blog_id}"
    assert body(response) == {
        "id": article.pk,
        "title": "First post",
        "content": "Hello",
        "contentHtml": "<p>Hello</p>",
        "excerpt": "Hello",
        # Issue 29: the readable name, when it was published, its tags and its content's format.
        "slug": "first-post",
        "publishedAt": article.published_at.isoformat().replace("+00:00", "Z"),
        "tags": [],
        "contentFormat": "text",
        "_links": {
            "curies": CURIES,
            "self": {"href": f"{base}/articles/{article.pk}"},
            "doc:blog": {"href": base, "title": "Alice's blog"},
            "doc:comments": {
                "href": f"{base}/articles/{article.pk}/comments{{?pageIndex,pageSize}}",
                "templated": True,
            },
            "doc:revisions": {
                "href": f"{base}/articles/{article.pk}/revisions{{?pageIndex,pageSize}}",
                "templated": True,
            },
        },
    }
    assert_links_are_objects(body(response)["_links"])


def test_article_without_content_leaves_content_out(api, blog):
    article = services.article_create(blog=blog, title="Only a title")

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles/{article.pk}"))

    assert "content" not in data
    assert data["title"] == "Only a title"


def test_empty_content_is_kept_as_an_empty_string(api, blog):
    article = services.article_create(blog=blog, title="Empty", content="")

    assert body(api.get(f"{API}/blogs/{blog.pk}/articles/{article.pk}"))["content"] == ""


def test_comment_names_its_author_and_links_to_its_article(api, article, bob):
    comment = services.comment_create(article=article, author=bob, text="Nice one")
    base = f"{ORIGIN}{API}/blogs/{article.blog_id}/articles/{article.pk}"

    response = api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments/{comment.pk}")

    assert response.status_code == 200
    assert body(response) == {
        "id": comment.pk,
        "author": "bob",
        "text": "Nice one",
        "_links": {
            "curies": CURIES,
            "self": {"href": f"{base}/comments/{comment.pk}"},
            "doc:article": {"href": base},
        },
    }


def test_unknown_blog_article_comment_and_route_are_404_problems(api, article, other_blog):
    paths = [
        f"{API}/blogs/999999",
        f"{API}/blogs/999999/articles",
        f"{API}/blogs/{article.blog_id}/articles/999999",
        # An article exists only in its own blog.
        f"{API}/blogs/{other_blog.pk}/articles/{article.pk}",
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments/999999",
        f"{API}/no-such-thing",
        f"{API}/blogs/abc",
        f"{API}/blogs/{'9' * 40}",
    ]
    for path in paths:
        response = api.get(path)
        assert response.status_code == 404, path
        assert response["Content-Type"] == "application/problem+json", path
        assert body(response)["status"] == 404


def test_a_comment_on_a_blog_or_article_no_table_can_hold_is_a_404(api, article, alice_token):
    # Ids past a 64-bit integer: SQLite would refuse the parameter (OverflowError, a 500).
    huge = "9" * 25
    for blog_id, article_id in [(huge, article.pk), (article.blog_id, huge), (huge, huge)]:
        path = f"{API}/blogs/{blog_id}/articles/{article_id}/comments"
        response = api.write("POST", path, {"text": "Hello"}, token=alice_token)
        assert response.status_code == 404, path
        assert body(response)["status"] == 404


def test_hrefs_ignore_forwarded_headers_when_not_behind_a_trusted_proxy(api, blog):
    response = api.get(
        f"{API}/blogs/{blog.pk}",
        headers={"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"},
    )

    assert body(response)["_links"]["self"]["href"] == f"{ORIGIN}{API}/blogs/{blog.pk}"


def test_the_api_sets_no_cookie(api, article, alice_token):
    responses = [
        api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}"),
        api.get(f"{API}/blogs/{article.blog_id}", headers={"Accept": "text/html"}),
        api.write(
            "POST", f"{API}/blogs/{article.blog_id}/articles", {"title": "t"}, token=alice_token
        ),
    ]
    for response in responses:
        assert response.status_code in (200, 201)
        assert not response.cookies
        assert "Set-Cookie" not in response


def test_head_answers_the_get_headers_without_a_body(api, article):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"

    head, get = api.head(url), api.get(url)

    assert head.status_code == 200
    assert head.content == b""
    assert head["ETag"] == get["ETag"]
    assert head["Content-Type"] == "application/hal+json"


def test_hrefs_follow_forwarded_headers_behind_a_trusted_proxy(api, blog, settings):
    settings.USE_X_FORWARDED_HOST = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

    response = api.get(
        f"{API}/blogs/{blog.pk}",
        headers={"X-Forwarded-Host": "localhost", "X-Forwarded-Proto": "https"},
    )

    data = body(response)
    assert data["_links"]["self"]["href"] == f"https://localhost{API}/blogs/{blog.pk}"
    assert data["_links"]["curies"][0]["href"] == "https://localhost/docs/rels/{rel}"
