"""The benchmark: the service and its baselines under the same gunicorn, loaded by wrk.

    .venv/bin/python -m bench.run            # the full run, about ten minutes (`make bench`)
    .venv/bin/python -m bench.run --quick    # a smoke run: one short round per workload

See bench/README.md for what is measured, how, and how to read the table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import secrets
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import prepare, report, webhooks
from bench.loadgen import fetch, probe, run_wrk
from bench.servers import ROOT, Server
from bench.workloads import (
    Workload,
    article_get,
    article_post,
    article_put,
    graphql_workloads,
    page_get,
    search_get,
    serving_workloads,
    soap_workloads,
    total_articles,
)

RESULTS = ROOT / "bench" / "results"
SOAP_NAMESPACE = os.environ.get("SOAP_NAMESPACE") or "http://example.org/calculator"
# High enough never to answer 429 in a run, low enough that the limiter still does its work.
UNLIMITED_RATE = "1000000/s"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one 2 s round per workload")
    parser.add_argument("--rounds", type=int, help="rounds per workload (default 3)")
    parser.add_argument("--duration", type=float, help="seconds per round (default 5)")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up per workload (1)")
    parser.add_argument("--connections", type=int, default=8, help="wrk connections (8)")
    parser.add_argument("--workers", type=int, default=2, help="WEB_CONCURRENCY (2)")
    parser.add_argument("--threads", type=int, help="GUNICORN_THREADS (the config's default)")
    parser.add_argument("--articles", type=int, default=1000, help="blog 1 size, main run")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL"),
        help="main database (default: PostgreSQL bench_main on 127.0.0.1 when it answers, "
        "else SQLite in bench/.work)",
    )
    parser.add_argument("--scale-articles", type=int, help="scale run size (1,000,000)")
    parser.add_argument("--no-scale", action="store_true", help="skip the 1,000,000 run")
    parser.add_argument(
        "--scale-database-url",
        default=os.environ.get("BENCH_SCALE_DATABASE_URL"),
        help="scale database (default: PostgreSQL bench_scale_<N> on 127.0.0.1)",
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/4"),
        help="shared cache, as in production ('' for the local-memory cache)",
    )
    parser.add_argument(
        "--no-rate-limit",
        action="store_true",
        help="RATE_LIMIT_ENABLED=false (by default limits stay on at 1000000/s, and cost)",
    )
    parser.add_argument("--fresh", action="store_true", help="drop the bench databases first")
    parser.add_argument(
        "--no-webhooks",
        action="store_true",
        help="skip the PUT/POST rows with one webhook subscription (worker, beat, receiver)",
    )
    parser.add_argument("--only", help="run only workloads whose key contains this text")
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.duration = args.duration or (2.0 if args.quick else 5.0)
    args.warmup = args.warmup if args.warmup is not None else 1.0
    args.scale_articles = args.scale_articles or (100_000 if args.quick else 1_000_000)
    return args


def _stop_on_sigterm(signum, frame) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    work = prepare.WORK
    (work / "logs").mkdir(parents=True, exist_ok=True)
    wrk = prepare.ensure_wrk()
    notes: list[str] = []

    postgres = prepare.postgres_reachable()
    main_url = _main_database(args, work, postgres=postgres)
    redis_url = args.redis_url if args.redis_url and prepare.redis_reachable(args.redis_url) else ""
    if args.redis_url and not redis_url:
        notes.append(f"Redis {args.redis_url} did not answer: local-memory cache")
    common = _environment(args, redis_url)
    hooks = _start_webhooks(args, common, notes)
    main_env = {**common, "DATABASE_URL": main_url}

    token, put_ids, read_id = _prepare_main(args, main_env, notes)
    servers = _main_servers(main_env, common, notes)
    hooked = _prepare_hooked(args, common, main_url, servers, notes) if hooks else None
    scale_url = _prepare_scale(args, common, servers, notes) if postgres else None
    if not postgres and not args.no_scale:
        notes.append("scale run not possible: it needs PostgreSQL on 127.0.0.1:5432")
    scale_total = args.scale_articles if scale_url else 0

    workloads = _workloads(args, read_id, put_ids, token, scale_total, servers, hooked)
    try:
        _start(servers, work)
        if hooks and hooked:
            _start_delivery(hooks, hooked, servers, workloads, notes)
        _start_limit(servers, workloads, work, common)
        _probe(servers, workloads)
        _measure(args, wrk, servers, workloads)
        if hooks and hooked:
            notes.append(hooks.drained())
    finally:
        for server in servers.values():
            server.stop()
        if hooks:
            hooks.stop()

    context = {
        "started": started,
        "mode": f"{'quick' if args.quick else 'full'}: {args.rounds} x {args.duration:.0f} s,"
        f" {args.connections} connections",
        "database": _redact(main_url) + (f" (scale: {_redact(scale_url)})" if scale_url else ""),
        "cache": ("redis" if redis_url else "local memory")
        + (", rate limits off" if args.no_rate_limit else ""),
        "gunicorn": f"{os.environ.get('GUNICORN_WORKER_CLASS') or 'gthread'},"
        f" {args.workers} workers x {args.threads or 'default'} threads,"
        " config/gunicorn.conf.py",
        "wrk": subprocess.run([wrk, "-v"], capture_output=True, text=True).stdout.split(" [")[0],
        "machine": f"{os.cpu_count()} CPUs, Python {platform.python_version()}",
        "notes": notes,
    }
    _write_results(report.build(workloads, servers), context)
    return 0


def _main_database(args: argparse.Namespace, work: Path, *, postgres: bool) -> str:
    url = args.database_url or (
        f"{prepare.DEFAULT_POSTGRES}/bench_main" if postgres else f"sqlite:///{work}/bench.sqlite3"
    )
    if args.fresh and url.startswith("sqlite:"):
        for suffix in ("", "-wal", "-shm"):
            Path(url.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
    if url.startswith("postgres"):
        prepare.ensure_postgres_database(url, fresh=args.fresh)
    return url


def _environment(args: argparse.Namespace, redis_url: str) -> dict[str, str]:
    """What every server gets: the service's production settings, and gunicorn's."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),  # loopback only, new for every run
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ALLOWED_PORTS": "*",
        "REDIS_URL": redis_url,
        "RATE_LIMIT_ENABLED": "false" if args.no_rate_limit else "true",
        "RATE_LIMIT_READ": UNLIMITED_RATE,
        "RATE_LIMIT_WRITE": UNLIMITED_RATE,
        "SOAP_NAMESPACE": SOAP_NAMESPACE,
        "WEB_CONCURRENCY": str(args.workers),
        "GUNICORN_MAX_REQUESTS": "0",  # so that memory growth shows instead of being recycled
        "GUNICORN_GRACEFUL_TIMEOUT": "5",
        **({"GUNICORN_THREADS": str(args.threads)} if args.threads else {}),
    }


def _prepare_main(
    args: argparse.Namespace, env: dict[str, str], notes: list[str]
) -> tuple[str, list[int], int]:
    """Migrate, seed, collect static files, load Star Wars, get a token; which ids to use."""
    print(f"preparing {_redact(env['DATABASE_URL'])} ({args.articles} articles)", flush=True)
    notes.append(prepare.prepare_database(env, articles=args.articles))
    prepare.manage(env, "collectstatic", "--noinput", "-v", "0")
    starwars = prepare.load_starwars(env)
    if starwars:
        notes.append(f"load_starwars: {starwars}")
    token, token_source = prepare.issue_token(env)
    notes.append(f"token from {token_source}")
    ids = prepare.bench_article_ids(env, limit=args.connections + 1)
    if len(ids) < args.connections + 1:
        raise prepare.SetupError(f"--articles must be at least {args.connections + 1}")
    return token, ids[: args.connections], ids[-1]


def _main_servers(
    main_env: dict[str, str], common: dict[str, str], notes: list[str]
) -> dict[str, Server]:
    servers = {
        "service": Server("service", "config.wsgi:application", main_env, "/healthz"),
        "floor": Server(
            "floor",
            "bench.floor.wsgi:application",
            {**main_env, "DJANGO_SETTINGS_MODULE": "bench.floor.settings"},
            "/",
        ),
        "soap_limit": Server("soap_limit", "bench.soap_limit:application", common, "/"),
    }
    try:
        servers["spyne"] = Server(
            "spyne",
            "bench.spyne_app:application",
            common,
            "/soap/calculator?FirstValue=0&SecondValue=0",
            gunicorn=prepare.ensure_spyne_venv(),
        )
    except (prepare.SetupError, subprocess.CalledProcessError) as error:
        notes.append(f"spyne baseline unavailable: {error}")
    return servers


def _prepare_scale(
    args: argparse.Namespace, common: dict[str, str], servers: dict[str, Server], notes: list[str]
) -> str | None:
    """The 1,000,000-article database and its two servers; None when not asked for."""
    if args.no_scale:
        return None
    url = args.scale_database_url or (
        f"{prepare.DEFAULT_POSTGRES}/bench_scale_{args.scale_articles}"
    )
    prepare.ensure_postgres_database(url, fresh=args.fresh)
    env = {**common, "DATABASE_URL": url}
    print(f"preparing {_redact(url)} ({args.scale_articles:,} articles)", flush=True)
    notes.append(prepare.prepare_database(env, articles=args.scale_articles))
    servers["service_scale"] = Server("service_scale", "config.wsgi:application", env, "/healthz")
    servers["floor_scale"] = Server(
        "floor_scale",
        "bench.floor.wsgi:application",
        {**env, "DJANGO_SETTINGS_MODULE": "bench.floor.settings"},
        "/",
    )
    return url


def _start_webhooks(
    args: argparse.Namespace, common: dict[str, str], notes: list[str]
) -> webhooks.Webhooks | None:
    """The broker for every server (so that the rows differ only by the subscription)."""
    if args.no_webhooks:
        return None
    why_not = webhooks.Webhooks.why_not()
    if why_not:
        notes.append(f"rows with a webhook subscription not run: {why_not}")
        return None
    hooks = webhooks.Webhooks()
    hooks.start_broker()
    common.update(hooks.environment())
    return hooks


def _prepare_hooked(
    args: argparse.Namespace, common: dict[str, str], main_url: str, servers, notes
) -> tuple[dict[str, str], str, list[int]]:
    env, token, ids = webhooks.prepare_hooked_database(args, common, main_url, notes)
    servers[webhooks.HOOKED] = Server(webhooks.HOOKED, "config.wsgi:application", env, "/healthz")
    return env, token, ids


def _start_delivery(hooks, hooked, servers, workloads, notes) -> None:
    """Subscribe blogs 1 and 2 of the hooked database, then start the worker and beat."""
    env, token, _ = hooked
    server = servers[webhooks.HOOKED]
    try:
        if server.error:
            raise RuntimeError(server.error)
        hooks.subscribe(server, token)
        hooks.start_celery(env)
    except (OSError, RuntimeError, AssertionError, ValueError) as error:
        reason = f"webhooks could not be set up: {str(error).splitlines()[0][:200]}"
        notes.append(reason)
        for workload in workloads:
            if workload.server == webhooks.HOOKED:
                workload.error = reason


def _write_results(result: dict, context: dict) -> None:
    table = report.markdown(result, context)
    text = table + "\n" + "".join(f"- {note}\n" for note in context["notes"])
    print("\n" + text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = context["started"].replace(":", "")
    (RESULTS / f"{stamp}.json").write_text(json.dumps({"context": context, **result}, indent=1))
    (RESULTS / f"{stamp}.md").write_text(text)
    (RESULTS / "latest.md").write_text(text)
    print(f"results: {RESULTS / stamp}.json and .md")


def _redact(url: str | None) -> str:
    return (url or "").split("@")[-1]


def _workloads(args, read_id, put_ids, token, scale_total, servers, hooked) -> list[Workload]:
    total = args.articles
    workloads = serving_workloads("service")
    for server in ("service", "floor", "limit"):
        workloads += [
            article_get(server, read_id),
            page_get(server, 10, total=total),
            page_get(server, 100, total=total),
        ]
    workloads += [article_put("service", put_ids, token), article_post("service", token)]
    if hooked:
        _, hooked_token, hooked_ids = hooked
        for workload in (
            article_put(webhooks.HOOKED, hooked_ids, hooked_token),
            article_post(webhooks.HOOKED, hooked_token),
        ):
            workload.label += ", 1 webhook"
            workloads.append(workload)
    workloads += graphql_workloads("service")
    for server in ("service", "soap_limit", "spyne"):
        workloads += soap_workloads(server, SOAP_NAMESPACE)
    if scale_total:
        last = math.ceil(scale_total / 10)
        for server in ("service_scale", "floor_scale"):
            workloads += [
                page_get(server, 10, 1, group="scale", total=scale_total),
                page_get(server, 10, last, group="scale", total=scale_total, name="page_last_10"),
            ]
        # Paging walks the index from the nearer end, so the middle page is the service's worst.
        workloads.append(
            page_get(
                "service_scale",
                10,
                (last + 1) // 2,
                group="scale",
                total=scale_total,
                name="page_middle_10",
            )
        )
        workloads.append(search_get("service_scale", scale_total))
        workloads.append(
            total_articles(
                "service_scale",
                scale_total,
                f"/api/v1.2/blogs/1/articles?pageIndex={scale_total + 1}&pageSize=1",
                "totalArticles (page past the end)",
            )
        )
        workloads.append(
            total_articles(
                "floor_scale", scale_total, "/bench/count/1", "totalArticles by COUNT(*)"
            )
        )
    if args.only:
        workloads = [w for w in workloads if args.only in w.key]
    for workload in workloads:
        if workload.server not in servers and workload.server != "limit":
            workload.error = f"server {workload.server} unavailable (see notes)"
    return workloads


def _start(servers: dict[str, Server], work: Path) -> None:
    for server in servers.values():
        server.start(work / "logs")
    for server in servers.values():
        if not server.wait_ready():
            print(f"{server.name}: {server.error}", flush=True)


def _start_limit(
    servers: dict[str, Server], workloads: list[Workload], work: Path, env: dict[str, str]
) -> None:
    """Record the service's answers (the floor's where the service has none) for the limit."""
    import base64

    recorded = {}
    for workload in workloads:
        if workload.server != "limit":
            continue
        for source in ("service", "floor"):
            server = servers[source]
            if server.error:
                continue
            answer = fetch(server.origin, workload)
            if answer.status == 200:
                recorded[workload.path] = {
                    "status": 200,
                    "content_type": answer.headers.get("content-type", "application/json"),
                    "body": base64.b64encode(answer.body).decode(),
                    "source": source,
                }
                if source != "service":
                    workload.label += " (floor's bytes)"
                break
    bodies = work / "limit-bodies.json"
    bodies.write_text(json.dumps(recorded))
    limit = Server(
        "limit", "bench.limit:application", {**env, "BENCH_LIMIT_BODIES": str(bodies)}, "/"
    )
    servers["limit"] = limit
    limit.start(work / "logs")
    limit.wait_ready()


def _probe(servers: dict[str, Server], workloads: list[Workload]) -> None:
    for workload in workloads:
        if workload.error:
            continue
        server = servers[workload.server]
        workload.error = server.error or probe(server.origin, workload)
        state = f"ERROR: {workload.error}" if workload.error else "ok"
        print(f"probe {workload.key:32} {state}", flush=True)


def _measure(args, wrk: str, servers: dict[str, Server], workloads: list[Workload]) -> None:
    runnable = [w for w in workloads if not w.error]
    estimate = len(runnable) * (args.warmup + args.rounds * args.duration)
    print(f"{len(runnable)} workloads, about {estimate / 60:.1f} min of load", flush=True)
    if args.warmup:
        for workload in runnable:
            try:
                run_wrk(
                    wrk,
                    servers[workload.server].origin,
                    workload,
                    seconds=args.warmup,
                    connections=args.connections,
                )
            except RuntimeError as error:
                workload.error = str(error)
            servers[workload.server].settle()
        runnable = [w for w in runnable if not w.error]
    # Rounds interleave the workloads, so that a slow spell of the machine hits all of them.
    for number in range(1, args.rounds + 1):
        for workload in runnable:
            started = time.monotonic()
            server = servers[workload.server]
            cpu_before = server.cpu_seconds()
            try:
                result = run_wrk(
                    wrk,
                    servers[workload.server].origin,
                    workload,
                    seconds=args.duration,
                    connections=args.connections,
                )
            except RuntimeError as error:
                workload.error = str(error)
                continue
            finally:
                server.settle()
            # Includes what the requests still running when wrk stopped cost; settle() waited
            # for them, so over a 5 s round the error is a request or two per connection.
            cpu = server.cpu_seconds() - cpu_before
            result["cpu_ms_per_request"] = (
                cpu * 1000 / result["requests"] if result["requests"] else None
            )
            workload.rounds.append(result)
            print(
                f"round {number} {workload.key:32} {result['rps']:9.0f} req/s "
                f"p50 {result['p50_ms']:7.2f} ms p99 {result['p99_ms']:7.2f} ms "
                f"cpu {result['cpu_ms_per_request'] or 0:5.2f} ms/req "
                f"errors {result['errors']} ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
        for server in servers.values():
            server.record_memory()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except prepare.SetupError as error:
        print(f"bench: {error}", file=sys.stderr)
        sys.exit(2)
