"""GET of an article and of an article page answer the same with and without DRF's dispatch.

articles/api/fast_reads.py answers the common reads itself and leaves everything else to DRF.
Each request here is sent twice, once with API_FAST_READS on and once off (every request
through DRF), and the two answers must agree in status, headers and body; the 200s must come
from the fast path when it is on (a DRF Response otherwise), so that the comparison means
something.
"""

from __future__ import annotations

import re
from email.utils import format_datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.response import Response

from articles import services
from tests.rest.conftest import API, body

# Headers that differ between any two requests, whatever answers them.
PER_REQUEST = {"X-Request-ID"}
ACCEPTS = [None, "*/*", "application/hal+json", "application/json"]


def answer(client, settings, fast: bool, path: str, headers: dict[str, str]):
    settings.API_FAST_READS = fast
    return client.get(path, headers={k: v for k, v in headers.items() if v is not None})


def comparable(response) -> tuple[int, dict[str, str], bytes]:
    headers = {k: v for k, v in response.items() if k not in PER_REQUEST}
    # The requests left go down by one per request: compare the rest of the header.
    if "RateLimit" in headers:
        headers["RateLimit"] = re.sub(r";r=\d+", ";r=N", headers["RateLimit"])
    return response.status_code, headers, response.content


def assert_same_answer(api, settings, path: str, headers: dict[str, str]):
    fast = answer(api, settings, True, path, headers)
    drf = answer(api, settings, False, path, headers)
    # With the setting off, a 200 is a DRF Response (errors and 304s are plain responses there too).
    assert isinstance(drf, Response) or drf.status_code != 200
    assert comparable(fast) == comparable(drf), (path, headers)
    return fast


@pytest.fixture
def read_limits(settings):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_READ = "1000/min"


@pytest.fixture
def articles(blog):
    made = [
        services.article_create(blog=blog, title=f"Article {n}", content=None if n % 3 else "Text")
        for n in range(7)
    ]
    services.article_delete(article=made[2])
    return made


@pytest.mark.parametrize("accept", ACCEPTS)
def test_an_article_is_answered_by_the_fast_path_exactly_as_by_drf(
    api, settings, read_limits, articles, accept
):
    for article in (articles[0], articles[1]):  # with content, and without
        path = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"
        fast = assert_same_answer(api, settings, path, {"Accept": accept})
        assert fast.status_code == 200 and not isinstance(fast, Response)
        assert body(fast)["id"] == article.pk


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize(
    "query", ["", "?pageIndex=2&pageSize=2", "?pageSize=100", "?pageIndex=3&pageSize=3"]
)
def test_a_page_is_answered_by_the_fast_path_exactly_as_by_drf(
    api, settings, read_limits, articles, blog, accept, query
):
    fast = assert_same_answer(
        api, settings, f"{API}/blogs/{blog.pk}/articles{query}", {"Accept": accept}
    )
    assert fast.status_code == 200 and not isinstance(fast, Response)
    assert body(fast)["totalArticles"] == 6


def test_a_page_past_the_end_and_an_empty_blog_answer_the_same(
    api, settings, read_limits, articles, blog, other_blog
):
    for path in (
        f"{API}/blogs/{blog.pk}/articles?pageIndex=50",
        f"{API}/blogs/{other_blog.pk}/articles",
    ):
        fast = assert_same_answer(api, settings, path, {})
        assert fast.status_code == 200 and body(fast)["_embedded"] == []


def test_conditional_reads_answer_the_same(api, settings, read_limits, articles, blog):
    article = articles[0]
    for path in (
        f"{API}/blogs/{blog.pk}/articles/{article.pk}",
        f"{API}/blogs/{blog.pk}/articles?pageSize=2",
    ):
        current = api.get(path)
        etag, modified = current["ETag"], current["Last-Modified"]
        later = format_datetime(timezone.now() + timezone.timedelta(days=1), usegmt=True)
        cases = {
            304: [
                {"If-None-Match": etag},
                {"If-None-Match": f'"other", W/{etag}'},
                {"If-Modified-Since": modified},
                {"If-Modified-Since": later},
                {"If-None-Match": "*"},
            ],
            200: [
                {"If-None-Match": '"other"'},
                {"If-Match": etag},
                {"If-Match": "*"},
                {"If-Unmodified-Since": modified},
                {"If-Modified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"},
            ],
            412: [{"If-Match": '"other"'}, {"If-Match": f"W/{etag}"}],
        }
        for status, header_sets in cases.items():
            for headers in header_sets:
                response = assert_same_answer(api, settings, path, headers)
                assert response.status_code == status, (path, headers)


def test_errors_are_drfs_answers(api, settings, read_limits, articles, blog, other_blog):
    gone = articles[2]
    cases = {
        f"{API}/blogs/{blog.pk}/articles/{gone.pk}": 410,
        f"{API}/blogs/{blog.pk}/articles/999999": 404,
        f"{API}/blogs/999999/articles/{articles[0].pk}": 404,
        f"{API}/blogs/{other_blog.pk}/articles/{articles[0].pk}": 404,
        f"{API}/blogs/{blog.pk}/articles/{2**63}": 404,
        f"{API}/blogs/{2**64}/articles": 404,
        f"{API}/blogs/999999/articles": 404,
        f"{API}/blogs/{blog.pk}/articles?pageSize=0": 400,
        f"{API}/blogs/{blog.pk}/articles?pageSize=101": 400,
        f"{API}/blogs/{blog.pk}/articles?pageIndex=x": 400,
    }
    for path, status in cases.items():
        response = assert_same_answer(api, settings, path, {})
        assert response.status_code == status, path
        assert response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize(
    "accept",
    [
        "application/hal+json; version=1.2",
        "application/hal+json; version=9",
        "application/xml",
        "application/json, application/hal+json;q=0.9",
        "",
    ],
)
def test_other_accept_headers_are_left_to_drf_and_answer_the_same(
    api, settings, read_limits, articles, accept
):
    article = articles[0]
    response = assert_same_answer(
        api, settings, f"{API}/blogs/{article.blog_id}/articles/{article.pk}", {"Accept": accept}
    )
    assert response.status_code in (200, 406)


def test_html_is_the_browsable_api_of_drf(api, settings, articles):
    settings.API_FAST_READS = True
    article = articles[0]
    response = api.get(
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}", headers={"Accept": "text/html"}
    )
    assert response.status_code == 200 and isinstance(response, Response)
    assert response["Content-Type"].startswith("text/html")


def test_an_unreachable_database_is_the_same_503(api, settings, articles, unreachable_database):
    article = articles[0]
    for path in (
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        f"{API}/blogs/{article.blog_id}/articles",
    ):
        response = assert_same_answer(api, settings, path, {})
        assert response.status_code == 503 and response["Retry-After"]
        assert response["Content-Type"] == "application/problem+json"


def test_a_failed_precondition_and_a_bad_parameter_are_answered_on_the_fast_path(
    api, settings, articles, blog
):
    """They are raised on the way and answered by the exception handler, with DRF's headers,
    without a second run through DRF (the rows are read once)."""
    settings.API_FAST_READS = True
    article = articles[0]
    for path, headers, status, queries in (
        (f"{API}/blogs/{blog.pk}/articles/{article.pk}", {"If-Match": '"x"'}, 412, 1),
        (f"{API}/blogs/{blog.pk}/articles?pageSize=2", {"If-Match": '"x"'}, 412, 1),
        (f"{API}/blogs/{blog.pk}/articles?pageSize=0", {}, 400, 0),
    ):
        with CaptureQueriesContext(connection) as captured:
            response = api.get(path, headers=headers)
        assert response.status_code == status
        assert len(captured) == queries
        assert response["Allow"] and response["Vary"] == "Accept"


def test_maintenance_is_drfs_503(api, settings, articles):
    settings.MAINTENANCE_MODE = True
    article = articles[0]
    response = assert_same_answer(
        api, settings, f"{API}/blogs/{article.blog_id}/articles/{article.pk}", {}
    )
    assert response.status_code == 503


def test_a_request_is_counted_once_whichever_path_answers(api, settings, articles):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_READ = "4/min"
    article, gone = articles[0], articles[2]
    paths = [
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",  # fast
        f"{API}/blogs/{gone.blog_id}/articles/{gone.pk}",  # counted here, answered by DRF (410)
        f"{API}/blogs/{article.blog_id}/articles",  # fast
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",  # fast
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",  # over the limit: DRF's 429
    ]
    responses = [api.get(path) for path in paths]
    assert [r.status_code for r in responses] == [200, 410, 200, 200, 429]
    assert [r["RateLimit"].split(";")[1] for r in responses] == ["r=3", "r=2", "r=1", "r=0", "r=0"]
    assert responses[4]["Content-Type"] == "application/problem+json"


def test_the_fast_path_reads_an_article_in_one_query_and_a_page_in_two(
    api, settings, articles, blog
):
    settings.API_FAST_READS = True
    for path, expected in (
        (f"{API}/blogs/{blog.pk}/articles/{articles[0].pk}", 1),
        (f"{API}/blogs/{blog.pk}/articles?pageSize=5", 2),
    ):
        with CaptureQueriesContext(connection) as captured:
            response = api.get(path)
        assert response.status_code == 200 and not isinstance(response, Response)
        assert len(captured) == expected, [q["sql"] for q in captured.captured_queries]


def test_writes_still_go_through_drf(api, settings, articles, alice_token):
    article = articles[0]
    response = api.write(
        "PUT",
        f"{API}/blogs/{article.blog_id}/articles/{article.pk}",
        {"title": "Changed"},
        token=alice_token,
        headers={
            "If-Match": api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}")["ETag"]
        },
    )
    assert response.status_code == 200 and isinstance(response, Response)
    fresh = api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}")
    assert body(fresh)["title"] == "Changed" and fresh["ETag"] == response["ETag"]
