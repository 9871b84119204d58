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

from bench import edge, prepare, report, webhooks
from bench.loadgen import fetch, probe, run_wrk
from bench.servers import ROOT, Server
from bench.store_fill import DEFAULT_ENTRIES, StoreFill, samples
from bench.workloads import (
    SCALE_SORTS,
    SEARCH_EITHER,
    SEARCH_WORD,
    Workload,
    article_get,
    article_get_with_token,
    article_post,
    article_put,
    article_put_missing,
    comment_post,
    comment_post_missing,
    graphql_workloads,
    page_get,
    random_pages_get,
    search_get,
    serving_workloads,
    soap_workloads,
    sorted_page_get,
    total_articles,
    with_full_store,
)

RESULTS = ROOT / "bench" / "results"
SOAP_NAMESPACE = os.environ.get("SOAP_NAMESPACE") or "http://example.org/calculator"
# High enough never to answer 429 in a run, low enough that the limiter still does its work.
UNLIMITED_RATE = "1000000/s"
# The service without Redis: its store is core_store on the main database (core/store.py).
STORE = "service_db"


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
    parser.add_argument(
        "--no-edge",
        action="store_true",
        help="skip the rows through the edge (varnishd, its own origin and purging worker)",
    )
    parser.add_argument(
        "--edge-writes",
        type=int,
        default=edge.WRITES,
        help=f"PUTs of the write-to-visible delay through the edge ({edge.WRITES})",
    )
    parser.add_argument(
        "--store-entries",
        type=int,
        default=DEFAULT_ENTRIES,
        help="entries in the database store for the full-store rows (500,000; 0: none)",
    )
    parser.add_argument(
        "--only",
        help="run only workloads whose key contains this text (several: separated by commas)",
    )
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
    prepare.ensure_service_venv()
    notes: list[str] = []

    postgres = prepare.postgres_reachable()
    main_url = _main_database(args, work, postgres=postgres)
    redis_url = args.redis_url if args.redis_url and prepare.redis_reachable(args.redis_url) else ""
    if args.redis_url and not redis_url:
        notes.append(f"Redis {args.redis_url} did not answer: local-memory cache")
    common = _environment(args, redis_url)
    hooks = _start_webhooks(args, common, notes)
    main_env = {**common, "DATABASE_URL": main_url}

    token, put_ids, comment_id, read_id = _prepare_main(args, main_env, notes)
    servers = _main_servers(main_env, common, notes)
    rig = _edge_rig(args, main_env, servers, work, notes)
    if not redis_url:
        notes.append(f"the service runs without Redis too: {STORE} rows compare it with itself")
    hooked = _prepare_hooked(args, common, main_url, servers, notes) if hooks else None
    scale_url = _prepare_scale(args, common, servers, notes) if postgres else None
    if not postgres and not args.no_scale:
        notes.append("scale run not possible: it needs PostgreSQL on 127.0.0.1:5432")
    scale_total = args.scale_articles if scale_url else 0

    workloads = _workloads(args, read_id, put_ids, comment_id, token, scale_total, servers, hooked)
    if rig is None:
        workloads = [w for w in workloads if w.server != edge.EDGE]
    if not main_url.startswith("postgres"):
        for workload in workloads:
            if workload.store_entries:
                workload.error = "filling the store needs PostgreSQL"
    store: StoreFill | None = None
    visible = None
    try:
        _start(servers, work)
        if hooks and hooked:
            _start_delivery(hooks, hooked, servers, workloads, notes)
        if rig:
            _start_edge_worker(rig, servers, workloads, notes)
        _start_limit(servers, workloads, work, common)
        _probe(servers, workloads)
        store = _store_fill(args, main_url, read_id, servers, workloads, notes)
        _measure(args, wrk, servers, workloads, store)
        if hooks and hooked:
            notes.append(hooks.drained())
        if rig and _edge_wanted(args) and not servers[edge.EDGE].error and rig.worker:
            visible = _write_to_visible(args, servers, workloads, token, put_ids[-1], notes)
    finally:
        for server in servers.values():
            server.stop()
        if hooks:
            hooks.stop()
        if rig:
            rig.stop()
        if store:
            store.ensure(filled=False)  # the store as the run found it, on error and Ctrl-C too

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
    result = report.build(workloads, servers, redis=bool(redis_url), visible=visible)
    _write_results(result, context)
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
) -> tuple[str, list[int], int, int]:
    """Migrate, seed, collect static files, load Star Wars, get a token; which ids to use."""
    print(f"preparing {_redact(env['DATABASE_URL'])} ({args.articles} articles)", flush=True)
    notes.append(prepare.prepare_database(env, articles=args.articles))
    prepare.manage(env, "collectstatic", "--noinput", "-v", "0")
    starwars = prepare.load_starwars(env)
    if starwars:
        notes.append(f"load_starwars: {starwars}")
    token, token_source = prepare.issue_token(env)
    notes.append(f"token from {token_source}")
    # One article per PUT connection for the service, as many for the service without Redis
    # (each server caches what it wrote in its own store) and for the DRF peer, one that only
    # the write-to-visible delay through the edge writes (the last of the writes' ids), one that
    # only the comments are written on, and one that only GET article reads.
    wanted = 3 * args.connections + 3
    ids = prepare.bench_article_ids(env, limit=wanted)
    if len(ids) < wanted:
        raise prepare.SetupError(f"--articles must be at least {wanted}")
    return token, ids[:-2], ids[-2], ids[-1]


def _main_servers(
    main_env: dict[str, str], common: dict[str, str], notes: list[str]
) -> dict[str, Server]:
    servers = {
        "service": Server("service", "config.wsgi:application", main_env, "/healthz"),
        # The same on the same database, with the database store instead of Redis.
        STORE: Server(STORE, "config.wsgi:application", {**main_env, "REDIS_URL": ""}, "/healthz"),
        "floor": Server(
            "floor",
            "bench.floor.wsgi:application",
            {**main_env, "DJANGO_SETTINGS_MODULE": "bench.floor.settings"},
            "/",
        ),
        # The contract's writes in DRF + drf-hal-json alone, on the same database (issue 30).
        "peer": Server(
            "peer",
            "bench.peer.wsgi:application",
            {**main_env, "DJANGO_SETTINGS_MODULE": "bench.peer.settings"},
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
    # Every scale request is read from the database, as a page nobody asked for in the last
    # minutes is (a crawler's, a deep one): the representation cache would otherwise answer the
    # rows' one repeated page without SQL.
    env["REPRESENTATION_CACHE_SECONDS"] = "0"
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


def _edge_wanted(args: argparse.Namespace) -> bool:
    """Whether --only leaves anything through the edge to run."""
    keys = [f"{edge.EDGE}.{name}" for name in edge.ROWS]
    return not args.only or any(
        text and text in key for text in args.only.split(",") for key in keys
    )


def _edge_rig(args, main_env: dict[str, str], servers, work: Path, notes) -> edge.EdgeRig | None:
    """The edge's origin and varnishd among the servers (origin first), its broker started."""
    if args.no_edge or not _edge_wanted(args):
        return None
    why_not = edge.EdgeRig.why_not()
    if why_not:
        notes.append(f"rows through the edge not run: {why_not}")
        return None
    rig = edge.EdgeRig(work)
    servers.update(rig.servers(main_env))
    notes.extend(rig.notes)
    return rig


def _start_edge_worker(rig: edge.EdgeRig, servers, workloads, notes) -> None:
    """The Celery worker that sends the edge's purges; without it the edge rows are not run."""
    try:
        if servers[edge.EDGE].error:
            raise RuntimeError(servers[edge.EDGE].error)
        rig.start_worker(servers[edge.ORIGIN])
    except (OSError, RuntimeError, AssertionError) as error:
        reason = f"the edge could not be set up: {str(error).splitlines()[0][:200]}"
        notes.append(reason)
        for workload in workloads:
            if workload.server == edge.EDGE:
                workload.error = reason


def _write_to_visible(args, servers, workloads, token: str, article_id: int, notes) -> dict:
    """After the load: how long a PUT through the edge takes to reach its anonymous readers;
    and whether the hot rows were hits (X-Cache) after the rounds."""
    origin = servers[edge.EDGE].origin
    for workload in workloads:
        if (
            workload.server == edge.EDGE
            and not workload.error
            and "X-Access-Token" not in (workload.headers)
        ):
            cache = fetch(origin, workload).headers.get("x-cache", "none")
            notes.append(f"edge: {workload.label} after the rounds: X-Cache {cache}")
    print(f"write-to-visible through the edge: {args.edge_writes} PUTs", flush=True)
    visible = edge.write_to_visible(origin, article_id, token, writes=args.edge_writes)
    figures = edge.summary(visible)
    print(f"write-to-visible: {visible.get('error') or figures}", flush=True)
    return visible


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


def _workloads(
    args, read_id, put_ids, comment_id, token, scale_total, servers, hooked
) -> list[Workload]:
    total = args.articles
    service_ids = put_ids[: args.connections]
    store_ids = put_ids[args.connections : 2 * args.connections]
    peer_ids = put_ids[2 * args.connections : 3 * args.connections]

    def full(workload: Workload) -> list[Workload]:
        return [with_full_store(workload, args.store_entries)] if args.store_entries else []

    def reads(server: str) -> list[Workload]:
        return [
            article_get(server, read_id),
            page_get(server, 10, total=total),
            page_get(server, 100, total=total),
        ]

    # Without Redis (issue 26), each row next to the one it is set against: the reads just after
    # the same with Redis, GET article and the PUT in a full store just after the same in an
    # empty one (the harness fills the store just before such a row and empties it after).
    workloads = serving_workloads("service") + reads("service")
    workloads += [article_get(STORE, read_id), page_get(STORE, 10, total=total)]
    workloads += full(article_get(STORE, read_id))
    workloads += reads("floor") + reads("limit")
    # The writes (issue 30), each just before the DRF peer's same write, which it is set against.
    workloads += [
        article_put("service", service_ids, token),
        article_put("peer", peer_ids, token),
        article_put_missing("service", token),
        article_post("service", token),
        article_post("peer", token),
        comment_post("service", comment_id, token),
        comment_post("peer", comment_id, token),
        comment_post_missing("service", token),
    ]
    workloads += [article_put(STORE, store_ids, token), *full(article_put(STORE, store_ids, token))]
    if hooked:
        _, hooked_token, hooked_ids = hooked
        for workload in (
            article_put(webhooks.HOOKED, hooked_ids, hooked_token),
            article_post(webhooks.HOOKED, hooked_token),
        ):
            workload.label += ", 1 webhook"
            workloads.append(workload)
    # Through the edge (issue 28): the reads hot in Varnish, set against the floor's; GET article
    # with the token passes to the origin.
    workloads += [
        article_get(edge.EDGE, read_id),
        page_get(edge.EDGE, 10, total=total),
        article_get_with_token(edge.EDGE, read_id, token),
    ]
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
        # Sorted pages (issue 27): first, middle and last, each read with one connection.
        for sort in SCALE_SORTS:
            for where, index in (("first", 1), ("middle", (last + 1) // 2), ("last", last)):
                workloads.append(
                    sorted_page_get("service_scale", sort, index, total=scale_total, where=where)
                )
        workloads.append(random_pages_get("service_scale", scale_total))
        workloads.append(search_get("service_scale", scale_total))
        workloads += [
            search_get("service_scale", scale_total, SEARCH_WORD, name="search_word_10"),
            search_get(
                "service_scale",
                scale_total,
                SEARCH_WORD,
                name="search_all_word_10",
                across_blogs=True,
            ),
            search_get("service_scale", scale_total, SEARCH_EITHER, name="search_either_10"),
        ]
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
        wanted = [text for text in args.only.split(",") if text]
        workloads = [w for w in workloads if any(text in w.key for text in wanted)]
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


def _store_fill(args, url: str, read_id: int, servers, workloads, notes) -> StoreFill | None:
    """What fills the store for the full-store rows (None when none runs), with values made
    from the store server's real answers; leftovers of an interrupted run are cleared first."""
    if not any(w.store_entries and not w.error for w in workloads):
        return None
    origin = servers[STORE].origin
    try:
        article = fetch(origin, article_get(STORE, read_id)).json()
        page = fetch(origin, page_get(STORE, 10, total=args.articles)).json()
    except (OSError, ValueError) as error:
        for workload in workloads:
            if workload.store_entries:
                workload.error = f"no answers to fill the store with: {error}"
        return None
    store = StoreFill(url, args.store_entries, samples(article, page))
    store.empty()
    notes.append(
        f"full-store rows: {args.store_entries:,} entries put in core_store (INSERT … SELECT"
        " generate_series, then ANALYZE) before them in each pass and deleted after (VACUUM FULL)"
    )
    return store


def _set_store(store: StoreFill | None, *, filled: bool) -> None:
    """The store full (for a full-store row), else as the run found it."""
    if store is not None and (done := store.ensure(filled=filled)):
        print(done, flush=True)


def _measure(args, wrk: str, servers, workloads: list[Workload], store: StoreFill | None) -> None:
    runnable = [w for w in workloads if not w.error]
    estimate = len(runnable) * (args.warmup + args.rounds * args.duration)
    print(f"{len(runnable)} workloads, about {estimate / 60:.1f} min of load", flush=True)
    if args.warmup:
        for workload in runnable:
            _set_store(store, filled=bool(workload.store_entries))
            try:
                run_wrk(
                    wrk,
                    servers[workload.server].origin,
                    workload,
                    seconds=args.warmup,
                    connections=workload.connections or args.connections,
                )
            except RuntimeError as error:
                workload.error = str(error)
            servers[workload.server].settle()
        _set_store(store, filled=False)
        runnable = [w for w in runnable if not w.error]
    # Rounds interleave the workloads, so that a slow spell of the machine hits all of them.
    for number in range(1, args.rounds + 1):
        for workload in runnable:
            _set_store(store, filled=bool(workload.store_entries))
            started = time.monotonic()
            server = servers[workload.server]
            cpu_before = server.cpu_seconds()
            try:
                result = run_wrk(
                    wrk,
                    servers[workload.server].origin,
                    workload,
                    seconds=args.duration,
                    connections=workload.connections or args.connections,
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
        _set_store(store, filled=False)
        for server in servers.values():
            server.record_memory()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except prepare.SetupError as error:
        print(f"bench: {error}", file=sys.stderr)
        sys.exit(2)
