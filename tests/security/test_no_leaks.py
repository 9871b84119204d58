"""With DEBUG off, no fault shows a traceback, SQL, a setting or a path of the server."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

LEAKS = [
    b"Traceback",
    b'File "',
    b"/work/",
    b"site-packages",
    b"SELECT",
    b"DROP",
    b"psycopg",
    b"sqlite3",
    b"SECRET_KEY",
    b"secret-detail-of-the-fault",
]


def assert_no_leak(response) -> None:
    body = response.content
    for leak in LEAKS:
        assert leak.lower() not in body.lower(), leak


@pytest.fixture
def browser_client() -> Client:
    # What a real client gets: the handler's response, not the exception re-raised into the test.
    return Client(raise_request_exception=False)


def test_debug_is_off_in_the_settings_the_tests_use():
    assert settings.DEBUG is False


@pytest.mark.urls("tests.security.urls_with_fault")
def test_an_unexpected_exception_answers_a_bare_500(browser_client, db):
    response = browser_client.get("/fault")
    assert response.status_code == 500
    assert_no_leak(response)


@pytest.mark.urls("tests.security.urls_with_fault")
def test_an_unexpected_exception_under_the_api_answers_a_problem_without_details(
    browser_client, db
):
    response = browser_client.get("/api/v1.2/fault", HTTP_ACCEPT="application/hal+json")
    assert response.status_code == 500
    assert_no_leak(response)


@pytest.mark.urls("tests.security.urls_with_fault")
def test_a_fault_in_an_api_view_and_outside_one_are_told_in_the_same_words(
    browser_client, db, blog, article
):
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE articles_comment")
    in_view = browser_client.get(
        f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}/comments", HTTP_X_REQUEST_ID="in-view"
    )
    outside = browser_client.get("/api/v1.2/fault", HTTP_X_REQUEST_ID="outside")

    assert in_view.json()["detail"] == "An unexpected fault; it was logged as request in-view."
    assert outside.json()["detail"] == "An unexpected fault; it was logged as request outside."


@pytest.mark.urls("tests.security.urls_with_fault")
def test_a_database_fault_in_the_api_answers_a_500_problem_without_sql(
    browser_client, db, blog, article
):
    # A real fault inside the real view: the table it reads is gone (inside the test's
    # transaction, which is rolled back afterwards).
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE articles_comment")
    response = browser_client.get(
        f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}/comments",
        HTTP_ACCEPT="application/hal+json",
    )
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["status"] == 500
    assert_no_leak(response)


def test_an_unknown_route_does_not_list_the_url_patterns(browser_client, db):
    response = browser_client.get("/no/such/route", HTTP_ACCEPT="text/html")
    assert response.status_code == 404
    assert b"URLconf" not in response.content and b"admin/" not in response.content
    assert_no_leak(response)
