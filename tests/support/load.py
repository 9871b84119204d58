"""Client-side load for the reliability tests and the soak script: standard library only, so
that it runs in freshly spawned processes without Django."""

from __future__ import annotations

import http.client
import json
import multiprocessing
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import TypeVar

from tests.support.servers import Response, http_request

T = TypeVar("T")

API = "/api/v1.2"


def race(calls: list[Callable[[], T]]) -> list[T]:
    """Run every call at the same moment (each in its own thread, released by one barrier)."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], T]) -> T:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def write_headers(token: str, **extra: str) -> dict[str, str]:
    return {"X-Access-Token": token, "Accept": "application/hal+json", **extra}


def post_burst(
    port: int, blog_id: int, token: str, count: int, threads: int, tag: str
) -> list[tuple[int, int | None]]:
    """POST `count` articles over `threads` concurrent connections; (status, id) of each."""

    def post(number: int) -> tuple[int, int | None]:
        reply = http_request(
            port,
            "POST",
            f"{API}/blogs/{blog_id}/articles",
            body={"title": f"{tag} #{number}", "content": "written under load"},
            headers=write_headers(token),
            timeout=30,
        )
        article_id = None
        if reply.status == 201:
            article_id = json.loads(reply.body)["id"]
        return reply.status, article_id

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(post, range(count)))


def post_chunked(port: int, path: str, chunks: list[bytes], headers: dict[str, str]) -> Response:
    """A POST whose body goes chunked (Transfer-Encoding: chunked, no Content-Length)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", path, body=iter(chunks), headers=headers, encode_chunked=True)
        reply = connection.getresponse()
        return Response(reply.status, reply.headers, reply.read())
    finally:
        connection.close()


def is_problem(reply: Response) -> bool:
    if not reply.headers.get("Content-Type", "").startswith("application/problem+json"):
        return False
    body = json.loads(reply.body)
    return body.get("status") == reply.status and {"type", "title", "detail"} <= body.keys()


def post_from_processes(
    ports: list[int], blog_id: int, tokens: list[str], per_process: int, threads: int
) -> list[tuple[int, int | None]]:
    """post_burst from one spawned process per token, process n posting to ports[n % len]."""
    processes = len(tokens)
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        bursts = pool.map(
            post_burst,
            [ports[n % len(ports)] for n in range(processes)],
            [blog_id] * processes,
            tokens,
            [per_process] * processes,
            [threads] * processes,
            [f"process {n}" for n in range(processes)],
        )
        return [result for burst in bursts for result in burst]


def run_together(seconds: float, *loops: Callable[[threading.Event], None]) -> None:
    """Run each loop in a thread of its own for `seconds`, then set the event each was given
    (a loop returns once it is set) and wait for them."""
    stop = threading.Event()
    threads = [threading.Thread(target=loop, args=(stop,)) for loop in loops]
    for thread in threads:
        thread.start()
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)


def health_checks(server, checks: list[int]) -> Callable[[threading.Event], None]:
    """A loop for run_together that asks `server` for /healthz every 0.2 s, noting each status."""

    def check(stop: threading.Event) -> None:
        while not stop.is_set():
            checks.append(server.request("GET", "/healthz", timeout=5).status)
            stop.wait(0.2)

    return check


def timed_reads(
    server, seed: int, path_of: Callable[[random.Random], str], reads: list[tuple[int, float, str]]
) -> Callable[[threading.Event], None]:
    """A loop for run_together that GETs (HAL) the path `path_of` picks with its own
    random.Random(seed), noting each (status, seconds, path)."""

    def read(stop: threading.Event) -> None:
        chosen = random.Random(seed)
        while not stop.is_set():
            path = path_of(chosen)
            started = time.monotonic()
            reply = server.request("GET", path, headers={"Accept": "application/hal+json"})
            reads.append((reply.status, time.monotonic() - started, path))

    return read
