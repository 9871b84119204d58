"""/metrics under gunicorn with several workers (prometheus-client's multiprocess mode): the
counts of every worker add up, those of workers that have exited included, and a new server
starts from zero."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from tests.support.metrics import parse, value
from tests.support.nginx import INSTALL, Nginx, nginx_binary
from tests.support.servers import http_request

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

TOKEN = "scrape-token-for-the-workers-test"
REQUESTS = 40
BLOG_ROUTE = "api/v1.2/blogs/<int:blog_id>"
SERIES = {"surface": "rest", "route": BLOG_ROUTE, "method": "GET"}

# What a previous run of the server left behind: a worker's file counting 1,000 requests.
_STALE = (
    "from prometheus_client import Counter\n"
    "Counter('blog_http_requests', '', ['surface', 'route', 'method', 'status'])"
    f".labels('rest', {BLOG_ROUTE!r}, 'GET', '200').inc(1000)\n"
)


def _leave_a_stale_file(directory: Path) -> None:
    directory.mkdir()
    subprocess.run(
        [sys.executable, "-c", _STALE],
        env={"PROMETHEUS_MULTIPROC_DIR": str(directory)},
        check=True,
    )
    assert list(directory.glob("counter_*.db"))
    (directory / "README").write_text("not prometheus-client's: left alone")


def _requests_per_process(directory: Path) -> dict[str, float]:
    """Each counter file's count of the blog reads (one file per worker process that served)."""
    counts = {}
    for path in directory.glob("counter_*.db"):
        for family in MultiProcessCollector.merge([str(path)]):
            for sample in family.samples:
                if sample.name == "blog_http_requests_total" and sample.labels == {
                    **SERIES,
                    "status": "200",
                }:
                    counts[path.name] = sample.value
    return counts


def test_several_workers_add_up_to_exactly_the_requests_sent(start_server, blog, tmp_path):
    directory = tmp_path / "metrics"
    _leave_a_stale_file(directory)
    # Each worker is replaced after 10 requests, so the 40 are served by several processes,
    # most of which have exited by the time of the scrape.
    server = start_server(
        workers=2,
        PROMETHEUS_MULTIPROC_DIR=str(directory),
        METRICS_TOKEN=TOKEN,
        GUNICORN_MAX_REQUESTS="10",
        GUNICORN_MAX_REQUESTS_JITTER="0",
    )

    def read(_: int) -> int:
        return server.request("GET", f"/api/v1.2/blogs/{blog.pk}").status

    with ThreadPoolExecutor(max_workers=4) as pool:
        statuses = list(pool.map(read, range(REQUESTS)))
    scraped = server.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert statuses == [200] * REQUESTS
    assert scraped.status == 200
    samples = parse(scraped.body.decode())
    assert value(samples, "blog_http_requests_total", **SERIES, status="200") == REQUESTS
    assert value(samples, "blog_http_request_duration_seconds_count", **SERIES) == REQUESTS
    assert value(samples, "blog_http_request_duration_seconds_bucket", **SERIES, le="+Inf") == (
        REQUESTS
    )
    queries = value(samples, "blog_db_queries_total", surface="rest", database="default")
    assert queries >= REQUESTS  # a blog read runs SQL: no representation cache for blogs
    per_process = _requests_per_process(directory)
    assert sum(per_process.values()) == REQUESTS
    assert len(per_process) >= 3, per_process  # served by more than one worker's lifetime
    assert (directory / "README").exists()


def test_under_gunicorn_metrics_needs_the_token(start_server, tmp_path):
    server = start_server(PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"), METRICS_TOKEN=TOKEN)

    anonymous = server.request("GET", "/metrics")
    wrong = server.request("GET", "/metrics", headers={"Authorization": "Bearer nope"})

    assert anonymous.status == 401
    assert wrong.status == 401
    assert wrong.headers["WWW-Authenticate"] == 'Bearer realm="metrics", error="invalid_token"'


def test_under_gunicorn_without_a_token_metrics_is_not_found(start_server, tmp_path):
    server = start_server(PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))

    response = server.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status == 404


def test_nginx_does_not_pass_metrics_on_even_with_the_token(start_server, tmp_path):
    if nginx_binary() is None:
        pytest.skip(f"nginx is not installed: {INSTALL}")
    server = start_server(
        BEHIND_TRUSTED_PROXY="true",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        METRICS_TOKEN=TOKEN,
    )
    authorization = {"Authorization": f"Bearer {TOKEN}"}

    with Nginx(upstream_port=server.port) as nginx:
        public = http_request(nginx.port, "GET", "/metrics", headers=authorization)
        public_head = http_request(nginx.port, "HEAD", "/metrics", headers=authorization)
        passed = http_request(nginx.port, "GET", "/healthz")
    direct = server.request("GET", "/metrics", headers=authorization)

    assert (public.status, public_head.status) == (404, 404)
    assert b"blog_http_requests" not in public.body
    assert passed.status == 200
    assert direct.status == 200 and b"blog_http_requests_total" in direct.body
