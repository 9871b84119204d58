"""The writes with one webhook subscription: what a subscriber costs the request path.

A second service server (`service_hooked`) on its own database (`bench_main_hooks`, seeded like
the main one), where blogs 1 and 2 each have one subscription (all events) pointing at a receiver on
127.0.0.1 in this process; a Celery worker and beat deliver while the rounds run, through an own
redis-server broker. The plain `service` gets the same broker URL, so the two differ only by the
subscription. Sending happens after commit and off the request path, so the PUT and POST rows
with one subscription should stay near those without; what remains is the outbox row written in
the write's transaction, and the worker sharing the machine's CPUs.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass, field

from bench import prepare
from bench.servers import Server
from tests.support.webhooks import CeleryProcess, Receiver, RedisServer

SUBSCRIBED_BLOGS = (1, 2)  # PUT writes blog 1's articles, POST writes into blog 2
HOOKED = "service_hooked"


@dataclass
class Webhooks:
    """Broker, receiver, worker and beat for the `service_hooked` rows."""

    broker: RedisServer = field(default_factory=RedisServer)
    receiver: Receiver = field(default_factory=Receiver)
    celery: list[CeleryProcess] = field(default_factory=list)
    load_ended: float | None = None

    @staticmethod
    def why_not() -> str | None:
        if not RedisServer.available():
            return "redis-server is not installed (apt-get install redis-server): no broker"
        return None

    def start_broker(self) -> str:
        self.broker.start()
        self.receiver.start()
        return self.broker.url()

    def environment(self) -> dict[str, str]:
        """What every process of the service gets: the broker, and loopback targets allowed
        (the receiver is on 127.0.0.1)."""
        return {"CELERY_BROKER_URL": self.broker.url(), "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true"}

    def subscribe(self, server: Server, token: str) -> None:
        """One subscription to every event on each blog written, through the REST API."""
        for blog in SUBSCRIBED_BLOGS:
            url = f"{server.origin}/api/v1.2/blogs/{blog}/webhooks"
            existing = _get_json(f"{url}?pageSize=100", token)
            for hook in _embedded(existing):
                _request("DELETE", _self(hook, server.origin), token)
            body = {"url": f"{self.receiver.url}/hook/{blog}", "events": ["*"], "active": True}
            _request("POST", url, token, body)

    def start_celery(self, env: dict[str, str]) -> None:
        for args in (["worker", "--concurrency=2"], ["beat"]):
            process = CeleryProcess(env=env, args=args)
            self.celery.append(process)
            process.start()

    def drained(self, *, quiet: float = 3.0, timeout: float = 120.0) -> str:
        """After the load: wait until no message has come for `quiet` seconds; a note with how
        many came and how long the last one took after the load ended."""
        ended = time.monotonic()
        deadline = ended + timeout
        last_count, last_change = -1, ended
        while time.monotonic() < deadline:
            count = len(self.receiver.received())
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            elif time.monotonic() - last_change >= quiet:
                break
            time.sleep(0.2)
        received = self.receiver.received()
        ids = {r.webhook_id for r in received}
        late = last_change - ended
        when = (
            f"the last {late:.1f} s after the load ended"
            if late > 0
            else "all of them in by the end of the load"
        )
        return (
            f"webhooks: {len(received)} messages received ({len(ids)} distinct webhook-ids), {when}"
        )

    def stop(self) -> None:
        for process in self.celery:
            process.stop()
        self.receiver.stop()
        self.broker.stop()


def prepare_hooked_database(
    args, common: dict[str, str], main_url: str, notes: list[str]
) -> tuple[dict[str, str], str, list[int]]:
    """The main database's twin, `<main>_hooks` (`bench_main_hooks`), seeded the same way."""
    if main_url.startswith("postgres"):
        url = f"{main_url}_hooks"
        prepare.ensure_postgres_database(url, fresh=args.fresh)
    else:
        url = f"sqlite:///{prepare.WORK}/bench-hooks.sqlite3"
    env = {**common, "DATABASE_URL": url}
    print(f"preparing {url.split('@')[-1]} ({args.articles} articles, webhooks)", flush=True)
    notes.append(prepare.prepare_database(env, articles=args.articles))
    token, _ = prepare.issue_token(env)
    ids = prepare.bench_article_ids(env, limit=args.connections)
    return env, token, ids


def _request(method: str, url: str, token: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("X-Access-Token", token)
    request.add_header("Accept", "application/hal+json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        payload = answer.read()
    return json.loads(payload) if payload else {}


def _get_json(url: str, token: str) -> dict:
    return _request("GET", url, token)


def _embedded(page: dict) -> list[dict]:
    embedded = page.get("_embedded")
    if isinstance(embedded, dict):  # {"webhooks": [...]} or a list, as the resource has it
        embedded = next(iter(embedded.values()), [])
    return embedded if isinstance(embedded, list) else []


def _self(resource: dict, origin: str) -> str:
    href = resource.get("_links", {}).get("self", {}).get("href", "")
    return href if href.startswith("http") else origin + href
