"""Every error status of the contract, produced by the situation it names, as a problem."""

from __future__ import annotations

import json

import pytest
from django.db import connection, connections
from django.db.utils import load_backend
from django.test import override_settings

from articles import services
from articles.models import Article
from blogs.models import Blog
from core.problems import PROBLEM_TYPES
from tests.rest.conftest import API, body, is_postgres

PROBLEM_FIELDS = {"type", "title", "status", "detail", "instance"}
LEAKS = ("Traceback", "SELECT", "INSERT", "articles_article", 'File "', "/work/", ".py")


def assert_problem(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    problem = body(response)
    assert set(problem) >= PROBLEM_FIELDS
    assert problem["status"] == status
    text = response.content.decode()
    for leak in LEAKS:
        assert leak not in text, leak
    return problem


def test_a_problem_type_resolves_to_an_html_page(api, db):
    problem = assert_problem(api.get(f"{API}/blogs/12345"), 404)

    page = api.get(problem["type"])

    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    assert problem["instance"] == f"{API}/blogs/12345"


def test_patch_is_405_with_allow_and_options_is_200_with_allow(api, article, alice_token):
    url = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"

    patch = api.write("PATCH", url, {"title": "x"}, token=alice_token)
    options = api.options(url)

    assert_problem(patch, 405)
    assert set(patch["Allow"].split(", ")) == {"GET", "PUT", "DELETE", "HEAD", "OPTIONS"}
    assert options.status_code == 200
    assert options["Allow"] == patch["Allow"]
    assert "PUT" not in api.options(f"{API}/blogs")["Allow"]
    assert_problem(api.write("PUT", f"{API}/blogs/{article.blog_id}", {}, token=alice_token), 405)


@pytest.mark.parametrize("method", ["TRACE", "CONNECT", "PROPFIND", "BREW", "FOO-BAR"])
def test_a_method_the_server_does_not_implement_is_501(api, article, method):
    for path in (f"{API}/blogs/{article.blog_id}", "/healthz"):
        response = api.generic(method, path)
        assert_problem(response, 501)


def test_a_body_over_the_limit_is_413_before_it_is_read(api, blog, alice_token, settings):
    settings.MAX_BODY_BYTES = 100
    payload = json.dumps({"title": "x", "content": "y" * 200})

    response = api.write("POST", f"{API}/blogs/{blog.pk}/articles", payload, token=alice_token)

    assert_problem(response, 413)
    assert not Article.objects.exists()


def test_the_default_limit_is_one_mebibyte(api, blog, alice_token):
    fits = json.dumps({"title": "big", "content": "y" * (1024 * 1024 - 100)})
    too_big = json.dumps({"title": "big", "content": "y" * (1024 * 1024)})
    url = f"{API}/blogs/{blog.pk}/articles"

    assert api.write("POST", url, fits, token=alice_token).status_code == 201
    assert_problem(api.write("POST", url, too_big, token=alice_token), 413)


def test_an_unreachable_database_is_503_with_retry_after(api, db):
    """A real connection attempt to a closed port: the view's first query cannot connect."""
    original = connections["default"]
    unreachable = load_backend("django.db.backends.postgresql").DatabaseWrapper(
        {
            **original.settings_dict,
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "nowhere",
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": "127.0.0.1",
            "PORT": "1",
            "OPTIONS": {"connect_timeout": 2},
            "CONN_HEALTH_CHECKS": False,
        },
        "default",
    )
    # With DATABASE_REPLICA_URL, the replica (the same database's mirror in tests) is gone too.
    aliases = [alias for alias in ("default", "replica") if alias in connections]
    originals = {alias: connections[alias] for alias in aliases}
    for alias in aliases:
        connections[alias] = unreachable
    try:
        response = api.get(f"{API}/blogs/1")
    finally:
        for alias in aliases:
            connections[alias] = originals[alias]
        unreachable.close()

    problem = assert_problem(response, 503)
    assert int(response["Retry-After"]) > 0
    assert "127.0.0.1" not in problem["detail"]


def test_maintenance_mode_is_503_with_retry_after(api, blog, settings):
    settings.MAINTENANCE_MODE = True

    response = api.get(f"{API}/blogs/{blog.pk}")

    assert_problem(response, 503)
    assert int(response["Retry-After"]) > 0


@pytest.fixture
def full_database(db):
    """The database really runs out of space for new rows.

    SQLite: max_page_count caps the file at its current size, so the next insert that needs a
    page fails with SQLITE_FULL. PostgreSQL cannot be filled safely in a test, so a trigger makes
    the server itself raise SQLSTATE 53100 (disk_full) on insert, through the real driver.
    """
    with connection.cursor() as cursor:
        if is_postgres():
            cursor.execute(
                "CREATE FUNCTION test_disk_full() RETURNS trigger AS $$ BEGIN "
                "RAISE EXCEPTION 'could not extend file: No space left on device' "
                "USING ERRCODE = 'disk_full'; END $$ LANGUAGE plpgsql"
            )
            cursor.execute(
                "CREATE TRIGGER test_disk_full BEFORE INSERT ON articles_article "
                "FOR EACH ROW EXECUTE FUNCTION test_disk_full()"
            )
        else:
            cursor.execute("PRAGMA page_count")
            (pages,) = cursor.fetchone()
            cursor.execute(f"PRAGMA max_page_count = {pages}")
    yield
    if not is_postgres():  # PostgreSQL's trigger goes with the test's transaction
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA max_page_count = 1073741823")


def test_a_database_out_of_space_is_507_and_nothing_is_half_written(
    api, blog, alice_token, full_database
):
    response = api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        {"title": "Too much", "content": "z" * 300_000},
        token=alice_token,
    )

    assert_problem(response, 507)
    assert not Article.objects.exists()
    assert Blog.objects.get(pk=blog.pk).article_count == 0


@pytest.mark.parametrize("debug", [False, True])
def test_an_unexpected_fault_is_500_saying_only_that(api, article, debug, caplog):
    """A real fault: the articles table is renamed away inside the test's transaction."""
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE articles_article RENAME TO articles_gone_for_test")

    with override_settings(DEBUG=debug):
        response = api.get(
            f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
            headers={"X-Request-ID": "fault-1"},
        )

    problem = assert_problem(response, 500)
    assert "fault-1" in problem["detail"]
    assert "gone_for_test" not in response.content.decode()
    # The log, not the body, has the details, under the same request id.
    logged = [r for r in caplog.records if "fault-1" in r.getMessage() and r.exc_info]
    assert logged and logged[0].levelname == "ERROR"


def test_unknown_routes_under_api_are_problems_too(api, db):
    assert_problem(api.get("/api/v9/blogs"), 404)
    assert_problem(api.get("/api/v1.2/blogs/1/unknown"), 404)


def test_a_locked_article_is_423_with_a_problem(api, article, alice_token):
    services.article_lock(article=article)

    response = api.write(
        "DELETE", f"{API}/blogs/{article.blog_id}/articles/{article.pk}", token=alice_token
    )

    assert assert_problem(response, 423)["type"].endswith("/docs/problems/locked")


def test_with_debug_on_an_unknown_api_route_is_still_a_problem(api, db, settings):
    settings.DEBUG = True

    response = api.get("/api/v1.2/no/such/route")

    problem = assert_problem(response, 404)
    assert "urlpatterns" not in response.content.decode()
    assert problem["instance"] == "/api/v1.2/no/such/route"


def test_a_method_the_resource_lacks_is_405_even_without_a_token(api, article):
    for method, url in (
        ("PUT", f"{API}/blogs/{article.blog_id}"),
        ("DELETE", f"{API}/blogs"),
        ("POST", f"{API}/blogs/{article.blog_id}/articles/{article.pk}"),
        ("PATCH", f"{API}/blogs/{article.blog_id}/articles/{article.pk}"),
    ):
        response = api.write(method, url, {"title": "x"})
        assert_problem(response, 405)
        assert "GET" in response["Allow"]


@pytest.mark.parametrize("slug", sorted(PROBLEM_TYPES))
def test_every_problem_type_has_its_page(api, db, slug):
    response = api.get(f"/docs/problems/{slug}")

    assert response.status_code == 200
    assert PROBLEM_TYPES[slug].title in response.content.decode()
