"""/metrics through HTTP, parsed as Prometheus parses it: who may read it, and which counters a
request moves, with which labels (docs/production.md, "Metrics")."""

from __future__ import annotations

import json

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import path

from core.metrics.views import metrics
from tests.graphql import faulty_urls
from tests.soap.messages import add_values, envelope, post12
from tests.support.metrics import labels, moved, parse, value

TOKEN = "scrape-token-0123456789"
ARTICLE_ROUTE = "api/v1.2/blogs/<int:blog_id>/articles/<int:article_id>"

pytestmark = pytest.mark.django_db


@pytest.fixture
def metrics_token(settings) -> str:
    settings.METRICS_TOKEN = TOKEN
    return TOKEN


@pytest.fixture
def scrape(client, metrics_token):
    def read() -> dict:
        response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200, response.content
        return parse(response.content.decode())

    return read


# --- Who may read it --------------------------------------------------------------------------


def test_without_a_metrics_token_configured_metrics_is_not_found(client, settings):
    settings.METRICS_TOKEN = None

    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status_code == 404
    assert b"blog_http_requests" not in response.content


def test_without_a_token_the_answer_is_401_with_a_bearer_challenge(client, metrics_token):
    response = client.get("/metrics")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert response["Content-Type"] == "application/problem+json"
    assert b"blog_http_requests" not in response.content


@pytest.mark.parametrize(
    "authorization",
    [f"Bearer {TOKEN}x", "Bearer wrong", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN[:-1]}"],
)
def test_a_wrong_token_is_refused_with_401(client, metrics_token, authorization):
    response = client.get("/metrics", headers={"Authorization": authorization})

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith('Bearer realm="metrics"')
    assert b"blog_http_requests" not in response.content


def test_with_the_token_the_exposition_is_prometheus_text_and_never_cached(client, metrics_token):
    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert "no-cache" in response["Cache-Control"]
    families = {name for name, _ in parse(response.content.decode())}
    assert "blog_http_requests_total" in families


def test_a_post_to_metrics_is_405_not_a_csrf_refusal(metrics_token):
    client = Client(enforce_csrf_checks=True)

    response = client.post("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


# --- What requests move ------------------------------------------------------------------------


def _queries_of(callable_):
    with CaptureQueriesContext(connections["default"]) as captured:
        result = callable_()
    return result, len(captured)


def test_a_rest_get_and_put_are_counted_by_route_method_and_status(
    client, scrape, blog, article, alice, token_for
):
    token = token_for(alice)
    url = f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"
    before = scrape()

    got, get_queries = _queries_of(lambda: client.get(url))
    put, put_queries = _queries_of(
        lambda: client.put(
            url,
            json.dumps({"title": "Replaced"}),
            content_type="application/json",
            headers={"X-Access-Token": token},
        )
    )
    after = scrape()

    assert (got.status_code, put.status_code) == (200, 200)
    requests = moved(before, after, "blog_http_requests_total")
    rest = {key: delta for key, delta in requests.items() if ("surface", "rest") in key}
    assert rest == {
        labels(surface="rest", route=ARTICLE_ROUTE, method="GET", status="200"): 1,
        labels(surface="rest", route=ARTICLE_ROUTE, method="PUT", status="200"): 1,
    }
    counts = moved(before, after, "blog_http_request_duration_seconds_count")
    sums = moved(before, after, "blog_http_request_duration_seconds_sum")
    buckets = moved(before, after, "blog_http_request_duration_seconds_bucket")
    for method in ("GET", "PUT"):
        series = labels(surface="rest", route=ARTICLE_ROUTE, method=method)
        assert counts[series] == 1
        assert sums[series] > 0
        # Buckets are cumulative: the observation is in +Inf and in every bucket from its own.
        inf = labels(surface="rest", route=ARTICLE_ROUTE, method=method, le="+Inf")
        assert buckets[inf] == 1
        assert (
            value(after, "blog_http_request_duration_seconds_bucket", **dict(inf, le="30.0")) >= 1
        )
    # The SQL both requests ran, as Django's own query capture saw it.
    assert moved(before, after, "blog_db_queries_total") == {
        labels(surface="rest", database="default"): get_queries + put_queries
    }
    assert get_queries > 0 and put_queries > 0
    cache_calls = moved(before, after, "blog_cache_calls_total")
    assert all(dict(key)["surface"] == "rest" for key in cache_calls)
    assert sum(cache_calls.values()) >= 2  # at least each request's rate limit


def test_a_hot_article_read_reads_no_content_and_its_cache_calls_are_counted(
    client, scrape, blog, article, settings
):
    url = f"/api/v1.2/blogs/{blog.pk}/articles/{article.pk}"
    assert client.get(url).status_code == 200  # the representation is now cached
    before = scrape()

    with CaptureQueriesContext(connections["default"]) as capture:
        response = client.get(url)
    captured = list(capture)  # before the next request resets Django's query log
    after = scrape()

    assert response.status_code == 200
    # On Redis no SQL at all; on the database store only the store's two statements.
    store = [] if settings.REDIS_URL else ['INSERT INTO "core_store"', "SELECT cache_key"]
    assert [query["sql"][: len(start)] for query, start in zip(captured, store, strict=False)] == (
        store
    )
    assert len(captured) == len(store)
    statements = {labels(surface="rest", database="default"): len(store)} if store else {}
    assert moved(before, after, "blog_db_queries_total") == statements
    # The rate limit's window (one atomic count) and the entry with its generations (get_many).
    assert moved(before, after, "blog_cache_calls_total") == {
        labels(surface="rest", operation="count_hits"): 1,
        labels(surface="rest", operation="get_many"): 1,
    }


def test_a_graphql_query_with_an_error_is_counted_as_an_error_and_a_request(client, scrape):
    before = scrape()

    response = client.post(
        "/graphql", {"query": "{ hello nonsense }"}, content_type="application/json"
    )
    after = scrape()

    assert response.status_code == 400
    assert moved(before, after, "blog_graphql_errors_total") == {labels(kind="validation"): 1}
    assert moved(before, after, "blog_http_requests_total") == {
        labels(surface="graphql", route="graphql", method="POST", status="400"): 1,
        labels(surface="site", route="metrics", method="GET", status="200"): 1,
    }


def test_a_graphql_request_refused_before_parsing_counts_as_a_request_error(client, scrape):
    before = scrape()

    media_type = client.post("/graphql", "query", content_type="text/plain")
    bad_host = client.post(
        "/graphql", {"query": "{ hello }"}, content_type="application/json", HTTP_HOST="evil.test"
    )
    after = scrape()

    assert (media_type.status_code, bad_host.status_code) == (415, 400)
    assert "errors" in bad_host.json()
    assert moved(before, after, "blog_graphql_errors_total") == {labels(kind="request"): 2}
    requests = moved(before, after, "blog_http_requests_total")
    assert requests[labels(surface="graphql", route="graphql", method="POST", status="415")] == 1
    not_routed = labels(surface="graphql", route="(not routed)", method="POST", status="400")
    assert requests[not_routed] == 1


def test_a_soap_fault_is_counted_by_its_code(client, scrape):
    before = scrape()

    sender = post12(client, "this is not XML")
    calculation = post12(client, envelope(add_values(2147483647, 1)))
    ok = post12(client, envelope(add_values(2, 3)))
    after = scrape()

    assert (sender.status_code, calculation.status_code, ok.status_code) == (400, 400, 200)
    assert moved(before, after, "blog_soap_faults_total") == {
        labels(code="Sender", version="1.2"): 2
    }
    assert moved(before, after, "blog_http_requests_total") == {
        labels(surface="soap", route="soap/calculator", method="POST", status="400"): 2,
        labels(surface="soap", route="soap/calculator", method="POST", status="200"): 1,
        labels(surface="site", route="metrics", method="GET", status="200"): 1,
    }


def test_a_429_from_the_read_limit_is_counted_as_a_refusal(client, scrape, blog, settings):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_READ = "2/min"
    url = f"/api/v1.2/blogs/{blog.pk}"
    before = scrape()

    statuses = [client.get(url, REMOTE_ADDR="10.9.9.9").status_code for _ in range(3)]
    refused_graphql = client.post(
        "/graphql", {"query": "{ hello }"}, content_type="application/json", REMOTE_ADDR="10.9.9.9"
    )
    after = scrape()

    assert statuses == [200, 200, 429]
    assert refused_graphql.status_code == 429
    assert moved(before, after, "blog_rate_limit_refusals_total") == {
        labels(surface="rest", policy="read"): 1,
        labels(surface="graphql", policy="read"): 1,
    }
    requests = moved(before, after, "blog_http_requests_total")
    assert (
        requests[
            labels(surface="rest", route="api/v1.2/blogs/<int:blog_id>", method="GET", status="429")
        ]
        == 1
    )
    assert moved(before, after, "blog_graphql_errors_total") == {labels(kind="request"): 1}


def test_a_write_over_the_write_limit_is_counted_under_write(
    client, scrape, blog, alice, token_for, settings
):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_WRITE = "1/min"
    token = token_for(alice)
    url = f"/api/v1.2/blogs/{blog.pk}/articles"
    before = scrape()

    statuses = [
        client.post(
            url,
            json.dumps({"title": "t"}),
            content_type="application/json",
            headers={"X-Access-Token": token},
        ).status_code
        for _ in range(2)
    ]
    after = scrape()

    assert statuses == [201, 429]
    assert moved(before, after, "blog_rate_limit_refusals_total") == {
        labels(surface="rest", policy="write"): 1
    }


def test_routes_are_patterns_and_odd_methods_are_one_label(client, scrape, blog):
    before = scrape()

    for n in range(3):
        client.get(f"/no/such/path/{n}")
    client.generic("BREW", f"/api/v1.2/blogs/{blog.pk}")
    client.get("/admin/login/")
    after = scrape()

    requests = moved(before, after, "blog_http_requests_total")
    assert requests[labels(surface="site", route="(unknown path)", method="GET", status="404")] == 3
    assert requests[labels(surface="rest", route="(not routed)", method="other", status="501")] == 1
    assert requests[labels(surface="admin", route="admin/login/", method="GET", status="200")] == 1
    assert not any("/no/such" in dict(key)["route"] for key in requests)
    assert (
        value(
            after,
            "blog_http_requests_total",
            surface="site",
            route="metrics",
            method="GET",
            status="200",
        )
        >= 1
    )


def test_an_admin_login_lockout_is_a_refusal_of_policy_other(client, scrape, editor, settings):
    settings.AXES_FAILURE_LIMIT = 2
    login = {"username": "editor", "password": "guess", "next": "/admin/"}
    before = scrape()

    statuses = [client.post("/admin/login/", login).status_code for _ in range(2)]
    after = scrape()

    assert statuses == [200, 429]
    assert moved(before, after, "blog_rate_limit_refusals_total") == {
        labels(surface="admin", policy="other"): 1
    }


# The real /graphql view over a schema with a resolver that fails, beside /metrics.
urlpatterns = [faulty_urls.urlpatterns[0], path("metrics", metrics)]


@pytest.mark.urls(__name__)
def test_graphql_errors_tell_a_resolver_fault_from_an_execution_error(client, scrape, settings):
    before = scrape()

    faulty = client.post("/graphql", {"query": "{ fine boom }"}, content_type="application/json")
    settings.GRAPHQL_TIME_BUDGET_MS = 0
    out_of_time = client.post("/graphql", {"query": "{ fine }"}, content_type="application/json")
    after = scrape()

    assert faulty.json()["errors"][0]["message"] == "Internal server error."
    assert "time budget" in out_of_time.json()["errors"][0]["message"]
    assert moved(before, after, "blog_graphql_errors_total") == {
        labels(kind="internal"): 1,
        labels(kind="execution"): 1,
    }
