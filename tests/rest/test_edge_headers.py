"""What the origin tells a shared cache in front of it (core.edge, docs/decisions/edge-cache.md):
public reads carry `Cache-Control: public` for the edge only, `Vary`, and the surrogate keys
(`xkey`) a write purges; anything of one client, and every error, stays out of it."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client, RequestFactory

from articles import services as article_services
from articles.models import Comment
from blogs.models import Blog
from core import representations
from core.cache_control import ERROR_CACHE_CONTROL
from core.edge import EdgeCacheMiddleware, share
from tests.rest.conftest import API, body

SHARED = "public, max-age=0, s-maxage=300, stale-while-revalidate=30, stale-if-error=86400"
HAL = "application/hal+json"
ATOM = "application/atom+xml"
HTML = "text/html"


def vary(response) -> set[str]:
    return {part.strip() for part in response.get("Vary", "").split(",") if part.strip()}


def xkeys(response) -> set[str]:
    assert response.has_header("xkey"), "no xkey header"
    keys = response["xkey"].split(" ")
    assert "" not in keys, f"not single-space separated: {response['xkey']!r}"
    assert len(keys) == len(set(keys)), f"a key twice: {response['xkey']!r}"
    return set(keys)


def assert_not_shared(response) -> None:
    assert "public" not in response.get("Cache-Control", ""), response.get("Cache-Control")
    assert not response.has_header("xkey")


@pytest.fixture
def comment(article, outsider) -> Comment:
    return article_services.comment_create(article=article, author=outsider, text="Nice")


@pytest.fixture
def revised(article):
    """The article replaced once: its first state is revision 1."""
    return article_services.article_replace(article=article, title="Second title", content="Hi")


def shareable(blog, article) -> list[tuple[str, str, set[str]]]:
    """(path, Accept, keys) of every shareable resource of the blog and article."""
    b, a = blog.pk, article.pk
    article_path = f"{API}/blogs/{b}/articles/{a}"
    return [
        (f"{API}/", HAL, {"site"}),
        (f"{API}/blogs", HAL, {"blogs", "site"}),
        (f"{API}/blogs/{b}", HAL, {f"blog:{b}", "site"}),
        (f"{API}/blogs/{b}/articles", HAL, {f"blog:{b}", f"blog-articles:{b}", "site"}),
        (f"{API}/blogs/{b}/articles?q=title", HAL, {f"blog:{b}", f"blog-articles:{b}", "site"}),
        (f"{API}/articles?q=title", HAL, {"articles", "blogs", "site"}),
        (article_path, HAL, {f"article:{a}", f"blog:{b}", "site"}),
        (article_path, "application/prs.hal-forms+json", {f"article:{a}", f"blog:{b}", "site"}),
        (article_path, HTML, {f"article:{a}", f"blog:{b}", "site"}),
        (
            f"{article_path}/comments",
            HAL,
            {f"article-comments:{a}", f"article:{a}", f"blog:{b}", "site"},
        ),
        (f"{article_path}/revisions", HAL, {f"article:{a}", f"blog:{b}", "site"}),
        (f"{article_path}/revisions/1", HAL, {f"article:{a}", f"blog:{b}", "site"}),
        (f"{API}/blogs/{b}/feed", ATOM, {f"blog:{b}", f"blog-articles:{b}", "site"}),
        # Issue 29: a blog's tags, a tag's articles.
        (f"{API}/blogs/{b}/tags", HAL, {f"blog-articles:{b}", "site"}),
        (f"{API}/blogs/{b}/articles?tag=x", HAL, {f"blog:{b}", f"blog-articles:{b}", "site"}),
        # The unversioned prefix, its version in Accept: the same keys purge both.
        (f"/api/blogs/{b}", f"{HAL}; version=1.2", {f"blog:{b}", "site"}),
        ("/docs/rels/", HTML, {"site"}),
        ("/docs/rels/blog", HTML, {"site"}),
    ]


@pytest.fixture
def resources(blog, revised, comment):
    found = shareable(blog, revised)
    path = f"{API}/blogs/{blog.pk}/articles/{revised.pk}/comments/{comment.pk}"
    keys = {f"article-comments:{revised.pk}", f"article:{revised.pk}", f"blog:{blog.pk}", "site"}
    found.append((path, HAL, keys))
    return found


def test_every_shareable_read_is_public_for_the_edge_only_with_its_keys(resources):
    client = Client()
    for path, accept, keys in resources:
        for method in ("get", "head"):
            response = getattr(client, method)(path, headers={"Accept": accept})
            assert response.status_code == 200, (method, path, response.status_code)
            assert response["Cache-Control"] == SHARED, (method, path)
            assert vary(response) >= {"Accept", "Accept-Encoding"}, (method, path)
            assert "Cookie" not in vary(response), (method, path)
            assert xkeys(response) == keys, (method, path)


def test_the_api_varies_by_accept_and_accept_encoding_only(resources):
    client = Client()
    for path, accept, _ in resources:
        if path.startswith("/api"):
            response = client.get(path, headers={"Accept": accept})
            assert vary(response) == {"Accept", "Accept-Encoding"}, path


def test_a_not_modified_answer_carries_what_the_full_one_does(resources):
    client = Client()
    for path, accept, keys in resources:
        full = client.get(path, headers={"Accept": accept})
        if not full.has_header("ETag"):
            continue  # the root and the documentation pages have no validators
        for condition in (
            {"If-None-Match": full["ETag"]},
            {"If-Modified-Since": full["Last-Modified"]},
        ):
            response = client.get(path, headers={"Accept": accept, **condition})
            assert response.status_code == 304, (path, condition)
            assert response["Cache-Control"] == full["Cache-Control"] == SHARED, path
            assert vary(response) == vary(full), path
            assert xkeys(response) == keys, path
            assert response["ETag"] == full["ETag"], path


def test_the_unversioned_feed_and_the_blog_pages_carry_the_same_keys_as_the_versioned(blog):
    client = Client()
    for suffix in ("", "/articles", "/feed"):
        accept = ATOM if suffix == "/feed" else HAL
        versioned = client.get(f"{API}/blogs/{blog.pk}{suffix}", headers={"Accept": accept})
        plain = client.get(f"/api/blogs/{blog.pk}{suffix}", headers={"Accept": accept})
        assert xkeys(versioned) == xkeys(plain)


@pytest.mark.parametrize("credentials", ["token", "authorization", "session"])
def test_a_request_with_credentials_is_private_and_names_no_keys(
    resources, alice, alice_token, credentials
):
    client = Client()
    headers = {}
    if credentials == "token":
        headers["X-Access-Token"] = alice_token
    elif credentials == "authorization":
        headers["Authorization"] = "Bearer anything"
    else:
        client.force_login(alice)
    for path, accept, _ in resources:
        response = client.get(path, headers={"Accept": accept, **headers})
        assert response.status_code == 200, (credentials, path)
        assert response["Cache-Control"] == "private, no-cache", (credentials, path)
        assert not response.has_header("xkey"), (credentials, path)
        assert "Accept" in vary(response), (credentials, path)


def test_a_conditional_request_with_a_token_is_a_private_304(api, article, alice_token):
    path = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"
    etag = api.get(path)["ETag"]

    response = api.get(path, headers={"If-None-Match": etag, "X-Access-Token": alice_token})

    assert response.status_code == 304
    assert response["Cache-Control"] == "private, no-cache"
    assert not response.has_header("xkey")


@pytest.fixture
def metrics_token(settings) -> str:
    settings.METRICS_TOKEN = "metrics-token-for-the-edge-tests"
    return settings.METRICS_TOKEN


def test_what_is_never_shared(blog, alice_token, editor, metrics_token):
    """With and without credentials: none of these is public, none names keys."""
    anonymous = Client()
    signed_in = Client()
    signed_in.force_login(editor)
    token = {"X-Access-Token": alice_token}
    answers = {
        "webhooks without a token": anonymous.get(f"{API}/blogs/{blog.pk}/webhooks"),
        "webhooks": anonymous.get(f"{API}/blogs/{blog.pk}/webhooks", headers=token),
        "metrics": anonymous.get("/metrics", headers={"Authorization": f"Bearer {metrics_token}"}),
        "metrics without a token": anonymous.get("/metrics"),
        "admin login": anonymous.get("/admin/login/"),
        "admin": signed_in.get("/admin/"),
        "admin blogs": signed_in.get("/admin/blogs/blog/"),
        "graphql": anonymous.get("/graphql?query={hello}", headers={"Accept": "application/json"}),
        "wsdl": anonymous.get("/soap/calculator?wsdl"),
        "healthz": anonymous.get("/healthz"),
        "livez": anonymous.get("/livez"),
        "readyz": anonymous.get("/readyz"),
        "missing blog": anonymous.get(f"{API}/blogs/999999", headers={"Accept": HAL}),
        "missing feed": anonymous.get(f"{API}/blogs/999999/feed", headers={"Accept": ATOM}),
        "missing rel": anonymous.get("/docs/rels/nothing"),
        "missing page": anonymous.get("/nowhere", headers={"Accept": HTML}),
        "feed refused": anonymous.get(f"{API}/blogs/{blog.pk}/feed", headers={"Accept": HAL}),
        "bad page": anonymous.get(f"{API}/blogs?pageIndex=0"),
        "failed If-Match": anonymous.get(f"{API}/blogs/{blog.pk}", headers={"If-Match": '"x"'}),
        "failed If-Match on the feed": anonymous.get(
            f"{API}/blogs/{blog.pk}/feed", headers={"Accept": ATOM, "If-Match": '"x"'}
        ),
    }
    statuses = {name: response.status_code for name, response in answers.items()}
    assert statuses == {
        "webhooks without a token": 401,
        "webhooks": 200,
        "metrics": 200,
        "metrics without a token": 401,
        "admin login": 200,
        "admin": 200,
        "admin blogs": 200,
        "graphql": 200,
        "wsdl": 200,
        "healthz": 200,
        "livez": 200,
        "readyz": 200,
        "missing blog": 404,
        "missing feed": 404,
        "missing rel": 404,
        "missing page": 404,
        "feed refused": 406,
        "bad page": 400,
        "failed If-Match": 412,
        "failed If-Match on the feed": 412,
    }
    for name, response in answers.items():
        assert "public" not in response.get("Cache-Control", ""), name
        assert not response.has_header("xkey"), name


def test_over_the_rate_limit_is_never_shared(api, blog, settings):
    settings.RATE_LIMIT_READ = "1/min"
    path = f"{API}/blogs/{blog.pk}"

    assert api.get(path)["Cache-Control"] == SHARED
    refused = api.get(path)

    assert refused.status_code == 429
    assert refused["Cache-Control"] == "no-store"
    assert not refused.has_header("xkey")


def test_a_write_names_no_keys(api, article, alice_token):
    path = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"

    responses = [
        api.write("PUT", path, {"title": "New"}, token=alice_token),
        api.write("POST", f"{path}/comments", {"text": "Hello"}, token=alice_token),
    ]

    assert [response.status_code for response in responses] == [200, 201]
    for response in responses:
        assert_not_shared(response)


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        (404, {}),
        (410, {}),
        (500, {}),
        (200, {"Set-Cookie": "csrftoken=x"}),
        (200, {"Cache-Control": "no-store"}),
        (201, {}),
    ],
)
def test_a_response_named_shareable_by_mistake_is_still_kept_out(status, headers):
    """The middleware decides whatever a view said: an error, a cookie, a view's own
    Cache-Control other than public, a status other than 200 and 304. An error without a
    Cache-Control of its own gets the errors' one (ERROR_CACHE_CONTROL, as the problems')."""
    answered = share(HttpResponse(status=status, headers=headers), [])
    middleware = EdgeCacheMiddleware(lambda request: answered)

    response = middleware(RequestFactory().get("/anything"))

    assert_not_shared(response)
    said = headers.get("Cache-Control", ERROR_CACHE_CONTROL if status >= 400 else "")
    assert response.get("Cache-Control", "") == said


def test_the_numbers_come_from_the_settings(api, blog, settings):
    settings.EDGE_SHARED_MAX_AGE = 60
    settings.EDGE_STALE_WHILE_REVALIDATE = 5
    settings.EDGE_STALE_IF_ERROR = 3600

    response = api.get(f"{API}/blogs/{blog.pk}")

    assert response["Cache-Control"] == (
        "public, max-age=0, s-maxage=60, stale-while-revalidate=5, stale-if-error=3600"
    )


@pytest.mark.parametrize("path", ["/favicon.ico", "/static/site/site.css"])
def test_static_files_are_shared_under_site_and_static(path, settings, db):
    settings.EDGE_SHARED_MAX_AGE = 120
    settings.WHITENOISE_USE_FINDERS = True  # the site's stylesheet, uncollected

    response = Client().get(path)

    assert response.status_code == 200
    assert response["Cache-Control"] == (
        "public, max-age=0, s-maxage=120, stale-while-revalidate=30, stale-if-error=86400"
    )
    assert xkeys(response) == {"site", "static"}


def test_a_signed_in_editor_gets_static_files_as_anyone_does_without_keys(editor, settings):
    settings.WHITENOISE_USE_FINDERS = True
    client = Client()
    client.force_login(editor)

    response = client.get("/static/site/site.css")

    assert response.status_code == 200
    assert response["Cache-Control"] == SHARED
    assert not response.has_header("xkey")


def tag(generation: str) -> str | None:
    return cache.get(generation)


def test_a_comment_written_or_deleted_renews_the_comments_of_its_article(api, article, alice_token):
    comments = representations.article_comments_generation(article.pk)
    path = f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"
    keys = xkeys(api.get(path))
    assert f"article-comments:{article.pk}" in keys
    before = tag(comments)

    created = api.write("POST", path, {"text": "Hello"}, token=alice_token)
    after_create = tag(comments)
    deleted = api.write("DELETE", created["Location"], token=alice_token)
    after_delete = tag(comments)

    assert (created.status_code, deleted.status_code) == (201, 204)
    assert None not in (after_create, after_delete)
    assert len({before, after_create, after_delete}) == 3
    # The page, read again, still names the same keys: the purge names them.
    assert xkeys(api.get(path)) == keys


def test_an_article_write_renews_its_comments(api, article, alice_token):
    comments = representations.article_comments_generation(article.pk)
    before = tag(comments)

    response = api.write(
        "PUT",
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        {"title": "New"},
        token=alice_token,
    )

    assert response.status_code == 200
    assert tag(comments) not in (None, before)


def test_a_blog_created_or_edited_in_the_admin_renews_the_blog_list(editor, blog):
    blogs = representations.blogs_generation()
    client = Client()
    client.force_login(editor)
    listed = Client().get(f"{API}/blogs", headers={"Accept": HAL})
    assert xkeys(listed) == {"blogs", "site"}
    before = tag(blogs)

    added = client.post("/admin/blogs/blog/add/", {"title": "New blog", "description": ""})
    after_add = tag(blogs)
    edited = client.post(
        f"/admin/blogs/blog/{blog.pk}/change/", {"title": "Renamed", "description": ""}
    )
    after_edit = tag(blogs)

    assert (added.status_code, edited.status_code) == (302, 302)
    assert Blog.objects.filter(title="New blog").exists()
    assert None not in (after_add, after_edit)
    assert len({before, after_add, after_edit}) == 3


def test_a_comment_deleted_in_the_admin_renews_the_comments_of_its_article(editor, comment):
    comments = representations.article_comments_generation(comment.article_id)
    before = tag(comments)
    client = Client()
    client.force_login(editor)

    response = client.post(f"/admin/articles/comment/{comment.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Comment.objects.filter(pk=comment.pk).exists()
    assert tag(comments) not in (None, before)


def test_a_comment_moved_in_the_admin_renews_both_articles(editor, comment, blog):
    other = article_services.article_create(blog=blog, title="Other")
    old, new = (
        representations.article_comments_generation(comment.article_id),
        representations.article_comments_generation(other.pk),
    )
    before = (tag(old), tag(new))
    client = Client()
    client.force_login(editor)

    response = client.post(
        f"/admin/articles/comment/{comment.pk}/change/",
        {"article": other.pk, "author": comment.author_id, "text": "Moved"},
    )

    assert response.status_code == 302, body(response) if response.status_code >= 400 else ""
    assert Comment.objects.get(pk=comment.pk).article_id == other.pk
    assert tag(old) not in (None, before[0])
    assert tag(new) not in (None, before[1])
