"""Soak: a fixed number of clients drive all three surfaces of one gunicorn for a fixed time.

    .venv/bin/python bench/soak.py --duration 120 --concurrency 8
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/soak REDIS_URL=redis://127.0.0.1:6379/6 \
        .venv/bin/python bench/soak.py

Traffic goes to 127.0.0.1 only and stops by itself. Reported: requests and statuses per
workload, p50/p95/p99 latency, every worker's resident memory over time. Exit status 1 when a
response was a 5xx, when a request failed outright, or when a worker's memory grew by more than
--max-growth-mib between the end of the warm-up and the end of the run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from tests.support.servers import GunicornServer, rss_kib  # noqa: E402

SOAP = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>'
    '<AddValues xmlns="{ns}"><FirstValue>{a}</FirstValue><SecondValue>{b}</SecondValue>'
    "</AddValues></env:Body></env:Envelope>"
)
PERSON = '{ person(id: "1") { name friends { name homeworld { name } films { title } } } }'
FILM = '{ film(id: "6") { title planets { name residents { name } } } }'


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return result.stdout


def client_loop(port: int, token: str, deadline: float, seed: int, namespace: str) -> list:
    """One client: the workloads in turn on one keep-alive connection until the deadline."""
    samples: list[tuple[str, int, float]] = []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    written: list[tuple[int, str]] = []  # (article id, etag) this client created

    def call(label, method, path, body=None, headers=None):
        nonlocal connection
        headers = dict(headers or {})
        started = time.perf_counter()
        try:
            connection.request(method, path, body=body, headers=headers)
            reply = connection.getresponse()
            data = reply.read()
            status = reply.status
            etag = reply.getheader("ETag")
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            data, status, etag = b"", 0, None
        samples.append((label, status, time.perf_counter() - started))
        return status, data, etag

    json_headers = {"Content-Type": "application/json", "Accept": "application/hal+json"}
    write_headers = {**json_headers, "X-Access-Token": token}
    step = seed
    while time.monotonic() < deadline:
        step += 1
        kind = step % 8
        if kind == 0:
            call("rest get article", "GET", f"/api/v1.2/blogs/1/articles/{1 + step % 20}")
        elif kind == 1:
            call("rest get page", "GET", f"/api/v1.2/blogs/1/articles?pageIndex={1 + step % 3}")
        elif kind == 2:
            status, data, etag = call(
                "rest post article",
                "POST",
                "/api/v1.2/blogs/1/articles",
                json.dumps({"title": f"soak {seed}-{step}", "content": "load"}),
                write_headers,
            )
            if status == 201:
                written.append((json.loads(data)["id"], etag))
        elif kind == 3 and written:
            article_id, etag = written.pop()
            status, _, new_etag = call(
                "rest put if-match",
                "PUT",
                f"/api/v1.2/blogs/1/articles/{article_id}",
                json.dumps({"title": f"soak {seed}-{step} edited"}),
                {**write_headers, "If-Match": etag},
            )
            if status == 200 and step % 2:
                call(
                    "rest delete",
                    "DELETE",
                    f"/api/v1.2/blogs/1/articles/{article_id}",
                    headers={**write_headers, "If-Match": new_etag},
                )
        elif kind == 4:
            call(
                "graphql person",
                "POST",
                "/graphql",
                json.dumps({"query": PERSON}),
                {"Content-Type": "application/json"},
            )
        elif kind == 5:
            call(
                "graphql film 6",
                "POST",
                "/graphql",
                json.dumps({"query": FILM}),
                {"Content-Type": "application/json"},
            )
        elif kind == 6:
            call(
                "soap post",
                "POST",
                "/soap/calculator",
                SOAP.format(ns=namespace, a=step, b=seed),
                {"Content-Type": "application/soap+xml; charset=utf-8"},
            )
        else:
            call(
                "soap get",
                "GET",
                f"/soap/calculator?FirstValue={step}&SecondValue={seed}",
                headers={"Accept": "application/soap+xml"},
            )
    connection.close()
    return samples


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of load")
    parser.add_argument("--concurrency", type=int, default=8, help="client processes")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--max-growth-mib", type=float, default=16.0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="soak-"))
    database_url = os.environ.get("DATABASE_URL") or f"sqlite:///{workdir / 'soak.sqlite3'}"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "SECRET_KEY": "soak-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz-0123",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "RATE_LIMIT_ENABLED": "false",
    }
    if os.environ.get("REDIS_URL"):
        env["REDIS_URL"] = os.environ["REDIS_URL"]
    print(f"soak: preparing {database_url.split('@')[-1]}", flush=True)
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "seed_demo")
    manage(env, "load_starwars")
    token = manage(env, "issue_token", "alice", "--name", f"soak {time.time():.0f}").split()[-1]
    namespace = os.environ.get("SOAP_NAMESPACE", "http://example.org/calculator")

    server_env = {k: v for k, v in env.items() if k not in {"PATH", "DJANGO_SETTINGS_MODULE"}}
    with GunicornServer(env=server_env, workers=args.workers, threads=args.threads) as server:
        workers = server.worker_pids()
        print(
            f"soak: gunicorn on {server.url}, workers {workers}; "
            f"{args.concurrency} clients for {args.duration:.0f} s",
            flush=True,
        )
        deadline = time.monotonic() + args.duration
        memory: list[tuple[float, dict[int, int]]] = []
        started = time.monotonic()
        context = multiprocessing.get_context("spawn")
        with context.Pool(args.concurrency) as pool:
            pending = pool.starmap_async(
                client_loop,
                [
                    (server.port, token, deadline, n * 100_000, namespace)
                    for n in range(args.concurrency)
                ],
            )
            while not pending.ready():
                pending.wait(5)
                memory.append(
                    (
                        time.monotonic() - started,
                        {pid: rss_kib(pid) for pid in server.worker_pids()},
                    )
                )
            samples = [sample for client in pending.get() for sample in client]
        workers_after = server.worker_pids()

    by_label: dict[str, list[tuple[int, float]]] = {}
    for label, status, seconds in samples:
        by_label.setdefault(label, []).append((status, seconds))
    rows = []
    for label, entries in sorted(by_label.items()):
        latencies = sorted(seconds * 1000 for _, seconds in entries)
        statuses: dict[int, int] = {}
        for status, _ in entries:
            statuses[status] = statuses.get(status, 0) + 1
        rows.append(
            {
                "workload": label,
                "requests": len(entries),
                "statuses": statuses,
                "p50_ms": percentile(latencies, 0.50),
                "p95_ms": percentile(latencies, 0.95),
                "p99_ms": percentile(latencies, 0.99),
            }
        )
    every = sorted(seconds * 1000 for _, _, seconds in samples)
    failures = sum(1 for _, status, _ in samples if status == 0 or status >= 500)
    warm = next((m for t, m in memory if t >= min(30.0, args.duration / 4)), memory[0][1])
    last = memory[-1][1]
    growth = {pid: (last.get(pid, 0) - warm.get(pid, 0)) / 1024 for pid in warm}

    print(f"\n{'workload':<20}{'requests':>9}  {'p50 ms':>7}{'p95 ms':>8}{'p99 ms':>8}  statuses")
    for row in rows:
        print(
            f"{row['workload']:<20}{row['requests']:>9}  {row['p50_ms']:>7.1f}"
            f"{row['p95_ms']:>8.1f}{row['p99_ms']:>8.1f}  {row['statuses']}"
        )
    print(
        f"{'all':<20}{len(every):>9}  {percentile(every, 0.5):>7.1f}{percentile(every, 0.95):>8.1f}"
        f"{percentile(every, 0.99):>8.1f}  {len(every) / args.duration:.0f} req/s, "
        f"{failures} failed or 5xx"
    )
    for pid in warm:
        print(
            f"worker {pid}: RSS {warm[pid] / 1024:.1f} MiB after warm-up, "
            f"{last.get(pid, 0) / 1024:.1f} MiB at the end ({growth[pid]:+.1f} MiB), "
            f"max {max(m.get(pid, 0) for _, m in memory) / 1024:.1f} MiB"
        )
    if workers_after != workers:
        print(f"workers changed during the run: {workers} -> {workers_after}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "duration_s": args.duration,
                    "concurrency": args.concurrency,
                    "workers": args.workers,
                    "threads": args.threads,
                    "rows": rows,
                    "all": {
                        "requests": len(every),
                        "failed_or_5xx": failures,
                        "p50_ms": percentile(every, 0.5),
                        "p95_ms": percentile(every, 0.95),
                        "p99_ms": percentile(every, 0.99),
                    },
                    "memory_kib": [{"t": t, "rss": m} for t, m in memory],
                },
                indent=2,
            )
        )
    ok = (
        failures == 0
        and workers_after == workers
        and all(g <= args.max_growth_mib for g in growth.values())
    )
    print("soak:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
