"""The rows through the edge (issue 28): Varnish in front of the service, and how long a write
takes to be visible there.

`service_edge` is a gunicorn of the service of its own, on the main database and the same
Redis cache as `service`, started as behind Varnish (`BEHIND_TRUSTED_PROXY=true`) and with
`EDGE_PURGE_URLS` naming the edge, so that every write records its surrogate keys and a Celery
worker soft-purges them (`core.purge_edge`) through a broker of its own: a redis-server on a free
port, else the filesystem broker in bench/.work (which polls, once a second). `edge` is varnishd
with deploy/varnish/blog-service.vcl in front of it (bench/servers.py, `Edge`).

After the load rows, `write_to_visible` PUTs one article through the edge (with the token and
If-Match) again and again, each time with the old version in the edge's cache, and polls
anonymous GETs through the edge every 10 ms until they show the PUT's ETag.
"""

from __future__ import annotations

import json
import math
import statistics
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench.servers import VCL, Edge, Server, varnishd
from bench.workloads import HAL_ACCEPT, REST
from tests.support.webhooks import CeleryProcess, RedisServer

ORIGIN = "service_edge"
EDGE = "edge"
# The edge's rows: three under load, then the write-to-visible delay.
ROWS = ("get_article", "page_1_10", "get_article_token", "write_to_visible")
WRITES = 50  # PUTs of the write-to-visible rows
POLL_SECONDS = 0.01
VISIBLE_TIMEOUT_SECONDS = 10.0


@dataclass
class EdgeRig:
    """The edge's origin and varnishd (two Servers), its broker and its purging worker."""

    work: Path
    broker: RedisServer | None = None
    worker: CeleryProcess | None = None
    notes: list[str] = field(default_factory=list)

    @staticmethod
    def why_not() -> str | None:
        if varnishd() is None:
            return "varnishd is not installed (apt-get install varnish varnish-modules)"
        if not VCL.exists():
            return f"{VCL.relative_to(VCL.parents[2])} is missing"
        return None

    def servers(self, main_env: dict[str, str]) -> dict[str, Server]:
        """The origin and the edge, in the order they must start; the broker started."""
        edge = Edge(EDGE, "varnishd", {}, "/healthz")
        env = {
            **main_env,
            "EDGE_PURGE_URLS": edge.origin,
            "BEHIND_TRUSTED_PROXY": "true",
            **self._broker_environment(),
        }
        origin = Server(ORIGIN, "config.wsgi:application", env, "/healthz")
        edge.backend = origin
        return {ORIGIN: origin, EDGE: edge}

    def _broker_environment(self) -> dict[str, str]:
        if RedisServer.available():
            self.broker = RedisServer().start()
            return {"CELERY_BROKER_URL": self.broker.url()}
        folder = self.work / "edge-broker"
        (folder / "control").mkdir(parents=True, exist_ok=True)
        self.notes.append(
            "edge: no redis-server, the purges go through the filesystem broker (polled once a"
            " second: the write-to-visible delay includes that wait)"
        )
        return {"CELERY_BROKER_URL": "filesystem://", "CELERY_BROKER_FOLDER": str(folder)}

    def start_worker(self, origin: Server) -> None:
        """The worker that sends the purges (2 pool processes, as the webhook rows')."""
        self.worker = CeleryProcess(env=origin.env, args=["worker", "--concurrency=2"])
        self.worker.start()

    def stop(self) -> None:
        if self.worker:
            self.worker.stop()
        if self.broker:
            self.broker.stop()


def _request(
    method: str, url: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            answer.read()
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}
    except urllib.error.HTTPError as error:
        error.read()
        return error.code, {k.lower(): v for k, v in error.headers.items()}


def write_to_visible(
    edge: str, article_id: int, token: str, *, writes: int = WRITES, poll: float = POLL_SECONDS
) -> dict:
    """`writes` PUTs of article `article_id` through the edge at `edge` (an origin URL); for each,
    the milliseconds from the PUT's answer to the first anonymous GET through the edge that shows
    the PUT's ETag. Before each PUT the edge holds the current version (a hit), so what is
    measured is the purge's way: outbox, broker, worker, PURGE, then the edge's refetch."""
    url = f"{edge}{REST}/1/articles/{article_id}"
    writer = {**HAL_ACCEPT, "X-Access-Token": token}
    status, headers = _request("GET", url, writer)
    if status != 200 or not headers.get("etag"):
        return {"error": f"GET article {article_id} with the token: HTTP {status}"}
    etag = headers["etag"]
    delays: list[float] = []
    timeouts = cold = 0
    for number in range(1, writes + 1):
        # The current version into the edge's cache: the second GET must be a hit on it.
        for _ in range(2):
            status, headers = _request("GET", url, HAL_ACCEPT)
        if headers.get("etag") != etag or headers.get("x-cache") != "HIT":
            cold += 1
        body = json.dumps(
            {
                "title": f"Through the edge {number}",
                "content": f"Written by the benchmark, {number}.",
            }
        ).encode()
        status, headers = _request(
            "PUT", url, {**writer, "Content-Type": "application/json", "If-Match": etag}, body
        )
        if status != 200 or not headers.get("etag"):
            return {"error": f"PUT {number} through the edge: HTTP {status}"}
        etag = headers["etag"]
        written = time.monotonic()
        while True:
            _, headers = _request("GET", url, HAL_ACCEPT)
            waited = time.monotonic() - written
            if headers.get("etag") == etag:
                delays.append(waited * 1000)
                break
            if waited > VISIBLE_TIMEOUT_SECONDS:
                timeouts += 1
                delays.append(VISIBLE_TIMEOUT_SECONDS * 1000)
                break
            time.sleep(poll)
    return {
        "article": article_id,
        "writes": writes,
        "delays_ms": delays,
        "timeouts": timeouts,
        "not_cached_before": cold,
        "poll_ms": poll * 1000,
    }


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (of 50 values, p99 is the largest)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(round(share * len(ordered), 6)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(visible: dict) -> dict:
    delays = visible.get("delays_ms") or []
    return {
        "p50_ms": statistics.median(delays) if delays else None,
        "p99_ms": percentile(delays, 0.99),
        "max_ms": max(delays, default=None),
    }
