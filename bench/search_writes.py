"""Readers of one search and writers beside them, against a running service on loopback: how long
the reads take while the articles change under them (issue 27's "with 8 connections no request
takes more than 1 s"; docs/benchmarks.md, "Carried over the writes").

    .venv/bin/python -m bench.search_writes --origin http://127.0.0.1:8000 --token TOKEN \\
        --path '/api/v1.2/articles?q=harbour&pageSize=10' --readers 8 --seconds 20 \\
        --write-every 0.2 --blog 1

Each reader asks for `--path` in a loop on its own keep-alive connection; a writer POSTs an
article to `--blog` every `--write-every` seconds (every other one holds the search's word, given
by `--word`), and `/healthz` is asked every 0.2 s. Prints the reads' p50, p99 and slowest, the
slowest health check and the writes' statuses. It stops by itself after `--seconds`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from urllib.parse import urlsplit


def _connection(origin: str) -> http.client.HTTPConnection:
    parts = urlsplit(origin)
    if parts.hostname not in ("127.0.0.1", "localhost"):
        raise SystemExit("loopback only: --origin must be http://127.0.0.1:<port>")
    return http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)


def _timed(
    connection: http.client.HTTPConnection, method: str, path: str, **kwargs
) -> tuple[int, float]:
    started = time.monotonic()
    connection.request(method, path, **kwargs)
    response = connection.getresponse()
    response.read()
    return response.status, time.monotonic() - started


def run(args: argparse.Namespace) -> dict:
    stop = threading.Event()
    reads: list[tuple[int, float]] = []
    checks: list[tuple[int, float]] = []
    writes: list[int] = []

    def read() -> None:
        connection = _connection(args.origin)
        while not stop.is_set():
            reads.append(
                _timed(connection, "GET", args.path, headers={"Accept": "application/hal+json"})
            )

    def check() -> None:
        connection = _connection(args.origin)
        while not stop.is_set():
            checks.append(_timed(connection, "GET", "/healthz"))
            time.sleep(0.2)

    def write() -> None:
        connection = _connection(args.origin)
        number = 0
        while not stop.is_set():
            number += 1
            text = f"{args.word} {number}" if number % 2 else f"inland {number}"
            status, _ = _timed(
                connection,
                "POST",
                f"/api/v1.2/blogs/{args.blog}/articles",
                body=json.dumps({"title": f"Written meanwhile {number}", "content": text}),
                headers={
                    "X-Access-Token": args.token,
                    "Content-Type": "application/hal+json",
                    "Accept": "application/hal+json",
                },
            )
            writes.append(status)
            time.sleep(args.write_every)

    threads = [threading.Thread(target=read) for _ in range(args.readers)]
    threads.append(threading.Thread(target=check))
    if args.write_every > 0:
        threads.append(threading.Thread(target=write))
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    times = sorted(seconds for _, seconds in reads)
    return {
        "reads": len(reads),
        "statuses": sorted({status for status, _ in reads}),
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p99_ms": round(times[int(len(times) * 0.99)] * 1000, 1),
        "slowest_ms": round(times[-1] * 1000, 1),
        "healthz_slowest_ms": round(max(seconds for _, seconds in checks) * 1000, 1),
        "writes": len(writes),
        "write_statuses": sorted(set(writes)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--origin", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--token", default="")
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--write-every", type=float, default=0.2, help="0: no writer")
    parser.add_argument("--blog", type=int, default=1)
    parser.add_argument("--word", default="harbour")
    print(json.dumps(run(parser.parse_args(argv))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
