"""Medians over rounds, ratios against the baselines of the same run, the targets, the tables."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from bench.edge import summary as visible_summary
from bench.servers import Server
from bench.store_fill import DEFAULT_ENTRIES
from bench.workloads import FULL_STORE, SCALE_SORTS, Workload, sorted_page_name

# Which baseline each service workload is compared with: (limit key, floor or spyne key).
REST_BASELINES = {
    "get_article": ("get_article", "get_article"),
    "page_1_10": ("page_1_10", "page_1_10"),
    "page_1_100": ("page_1_100", "page_1_100"),
    # Writes have no write baseline; they are set against the read of one article.
    "put_article": ("get_article", "get_article"),
    "post_article": ("get_article", "get_article"),
    "post_comment": ("get_article", "get_article"),
}
# Issue 30: the DRF + drf-hal-json peer (bench/peer/) of the contract's writes; the service's
# writes, with everything it promises on, at least PEER_LEAD x its req/s.
PEER = "peer"
PEER_WRITES = {
    "put_article": "PUT article (If-Match)",
    "post_article": "POST article",
    "post_comment": "POST comment",
}
PEER_LEAD = 1.2
# The service's PUT and comment without the write (bench.workloads.article_put_missing,
# comment_post_missing), each set against the peer's whole write: what the path alone leaves of
# the lead.
PATH_WITHOUT_WRITE = {"put_on_no_article": "put_article", "comment_on_no_article": "post_comment"}
# Issue 30: a web worker after the run (issue 13 had asked 120).
MEMORY_LIMIT_MB = 80.0
# Issue 18: a two-word search over the 1,000,000-article blog answers a page of 10 in this.
SEARCH_P50_MS = 50.0
# Issue 27: a one-word search (30,000 matches in 1,000,000), the blog's and across blogs.
BROAD_SEARCH_P50_MS = 60.0
MEMORY_GROWTH_MB = 2.0
# Issue 27: a sorted page of the 1,000,000-article blog, read with one connection, answers in
# this (first and last page; any page); pages at random, with the run's connections, never
# take longer than SLOWEST_PAGE_MS.
SORTED_END_P50_MS = 20.0
SORTED_ANY_P50_MS = 60.0
SLOWEST_PAGE_MS = 1000.0
RANDOM_PAGES = "service_scale.random_pages_10"
# Issue 26: the service without Redis (its database store) and the workloads compared there.
STORE = "service_db"
STORE_READS = ("get_article", "page_1_10")
WITHOUT_REDIS = 0.7  # reads without Redis ≥ this x the same reads with Redis
FULL_STORE_COST = 0.9  # in a full store ≥ this x the same in an empty one
# Issue 28: through the edge (Varnish), a hot article ≥ this x the floor's GET article; a write
# is visible to anonymous readers of the edge within VISIBLE_P99_MS (p99).
EDGE = "edge"
EDGE_TIMES_FLOOR = 25.0
VISIBLE_P99_MS = 1000.0
VISIBLE = "edge.write_to_visible"


@dataclass
class Row:
    workload: Workload
    rps: float | None
    p50: float | None
    p99: float | None
    errors: int | None
    statuses: dict[int, int]
    cpu_ms: float | None = None


def median_row(workload: Workload) -> Row:
    if workload.error or not workload.rounds:
        return Row(workload, None, None, None, None, {})
    statuses: dict[int, int] = {}
    for result in workload.rounds:
        for status, n in result["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    return Row(
        workload,
        statistics.median(r["rps"] for r in workload.rounds),
        statistics.median(r["p50_ms"] for r in workload.rounds),
        statistics.median(r["p99_ms"] for r in workload.rounds),
        sum(r["errors"] for r in workload.rounds),
        statuses,
        _median_or_none([r.get("cpu_ms_per_request") for r in workload.rounds]),
    )


def _median_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _fmt(value: float | None, pattern: str = "{:.2f}") -> str:
    return "error" if value is None else pattern.format(value)


def build(
    workloads: list[Workload],
    servers: dict[str, Server],
    *,
    redis: bool = True,
    visible: dict | None = None,
) -> dict:
    """The table and the targets; `redis`: whether the service had Redis (else its rows and
    the database store's are the same server twice, and the comparison says nothing);
    `visible`: the write-to-visible delays through the edge (bench.edge.write_to_visible), when
    measured."""
    rows = {w.key: median_row(w) for w in workloads}

    def rps(key: str) -> float | None:
        return rows[key].rps if key in rows else None

    def p50(key: str) -> float | None:
        return rows[key].p50 if key in rows else None

    table = []
    for key, row in rows.items():
        server, _, name = key.partition(".")
        versus_limit = versus_other = None
        note = ""
        if key == RANDOM_PAGES and row.workload.rounds:
            note = f"slowest {max(r['max_ms'] for r in row.workload.rounds):.0f} ms"
        elif server == "service_scale" and name.startswith("sorted_"):
            order, where, size = name.rsplit("_", 2)
            if where != "first":
                first = p50(f"service_scale.{order}_first_{size}")
                note = f"p50 {_fmt(_ratio(row.p50, first))} x its first page's"
        elif server == "service_scale":
            versus_other = _ratio(row.rps, rps(f"floor_scale.{name}"))
            if name != "page_1_10":
                note = f"p50 {_fmt(_ratio(row.p50, p50('service_scale.page_1_10')))} x page 1's"
        elif server == "service" and name in PATH_WITHOUT_WRITE:
            ahead = _ratio(row.rps, rps(f"{PEER}.{PATH_WITHOUT_WRITE[name]}"))
            note = f"no write: {_fmt(ahead)} x the peer's whole {PATH_WITHOUT_WRITE[name]}"
        elif server in ("service", PEER) and name in REST_BASELINES:
            limit_name, floor_name = REST_BASELINES[name]
            versus_limit = _ratio(row.rps, rps(f"limit.{limit_name}"))
            versus_other = _ratio(row.rps, rps(f"floor.{floor_name}"))
            if limit_name != name:
                note = "ratios against GET article"
            if server == "service" and name in PEER_WRITES:
                ahead = _ratio(row.rps, rps(f"{PEER}.{name}"))
                note += f"; {_fmt(ahead)} x peer" if ahead is not None else ""
        elif server == STORE and name.endswith(FULL_STORE):
            versus_other = _ratio(row.rps, rps(f"{STORE}.{name.removesuffix(FULL_STORE)}"))
            note = "second ratio: against the same in an empty store"
        elif server == STORE:
            versus_other = _ratio(row.rps, rps(f"service.{name}"))
            note = "second ratio: against the service with Redis" + ("" if redis else " (none)")
            if name in STORE_READS:
                note += f"; {_fmt(_ratio(row.rps, rps(f'floor.{name}')))} x floor"
        elif server == "service_hooked":
            # The same write on a blog with one subscription, against the blog with none.
            versus_other = _ratio(row.rps, rps(f"service.{name}"))
            note = "second ratio: against the same write with no subscription"
        elif server == EDGE:
            # Through Varnish: against what a plain Django view of the same data answers.
            versus_other = _ratio(row.rps, rps(f"floor.{name.removesuffix('_token')}"))
            if name.endswith("_token"):
                service = _ratio(row.rps, rps("service.get_article"))
                note = "passes to the origin" + (
                    f"; {service:.2f} x the service's GET article" if service else ""
                )
            else:
                note = "hot: every request a hit after the warm-up"
        elif server == "service" and name.startswith("soap_"):
            versus_limit = _ratio(row.rps, rps(f"soap_limit.{name}"))
            versus_other = _ratio(row.rps, rps(f"spyne.{name}"))
            note = "second ratio: against spyne"
        elif server == "service" and name.startswith("graphql_") and name != "graphql_hello":
            note = f"p50 {_fmt(_ratio(row.p50, p50('service.graphql_hello')))} x hello's"
        elif server == "spyne":
            versus_limit = _ratio(row.rps, rps(f"soap_limit.{name}"))
        elif server == "floor":
            versus_limit = _ratio(row.rps, rps(f"limit.{name}"))
        elif server == "floor_scale" and name != "page_1_10":
            note = f"p50 {_fmt(_ratio(row.p50, p50('floor_scale.page_1_10')))} x page 1's"
        if row.workload.script == "put_if_match" and row.errors is not None:
            conflicts = row.statuses.get(412, 0)
            note = (note + "; " if note else "") + f"412: {conflicts}"
        table.append(
            {
                "key": key,
                "group": row.workload.group,
                "workload": row.workload.label,
                "server": server,
                "rps": row.rps,
                "p50_ms": row.p50,
                "p99_ms": row.p99,
                "errors": row.errors,
                "cpu_ms_per_request": row.cpu_ms,
                "statuses": row.statuses,
                "x_limit": versus_limit,
                "x_floor_or_spyne": versus_other,
                "note": note,
                "error": row.workload.error,
                "rounds": row.workload.rounds,
            }
        )
    targets = (
        _targets(rps, p50, rows, servers)
        + _peer_targets(rps, rows)
        + _store_targets(rps, rows, redis=redis)
    )
    if visible is not None:
        table.append(_visible_row(visible))
    return {
        "table": table,
        "targets": targets + _edge_targets(rps, rows, visible),
        "memory": _memory(servers),
        **({"write_to_visible": visible} if visible is not None else {}),
    }


def _visible_row(visible: dict) -> dict:
    """The write-to-visible delay as a row of the table: p50 and p99 over the writes."""
    figures = visible_summary(visible)
    note = ""
    if not visible.get("error"):
        note = (
            f"{visible['writes']} PUTs (token, If-Match), each then anonymous GETs every"
            f" {visible['poll_ms']:.0f} ms until the PUT's ETag; max {figures['max_ms']:.0f} ms"
        )
        if visible["not_cached_before"]:
            note += f"; {visible['not_cached_before']} not a hit before the PUT"
    return {
        "key": VISIBLE,
        "group": "edge",
        "workload": "PUT → visible through the edge",
        "server": EDGE,
        "rps": None,
        "p50_ms": figures["p50_ms"],
        "p99_ms": figures["p99_ms"],
        "errors": visible.get("timeouts"),
        "cpu_ms_per_request": None,
        "statuses": {},
        "x_limit": None,
        "x_floor_or_spyne": None,
        "note": note,
        "error": visible.get("error"),
        "rounds": [],
    }


def _edge_targets(rps, rows: dict[str, Row], visible: dict | None) -> list[dict]:
    """Issue 28: a hot article through the edge, against the floor; how soon a write shows."""
    if not any(key.startswith(f"{EDGE}.") for key in rows) and visible is None:
        return []
    article, floor = f"{EDGE}.get_article", "floor.get_article"
    targets = [
        _target(
            f"edge: GET article ≥ {EDGE_TIMES_FLOOR:.0f} x the floor req/s",
            _ratio(rps(article), rps(floor)),
            EDGE_TIMES_FLOOR,
            at_least=True,
            by_cpu=_cpu_ratio(rows, article, floor),
        )
    ]
    figures = visible_summary(visible or {})
    target = _target(
        f"edge: a write visible to anonymous GETs, p99 ≤ {VISIBLE_P99_MS:.0f} ms",
        None if visible is None or visible.get("error") else figures["p99_ms"],
        VISIBLE_P99_MS,
        at_least=False,
    )
    if visible and visible.get("timeouts"):
        target["verdict"] = f"NOT met: {visible['timeouts']} never visible within 10 s"
    targets.append(target)
    edge_rows = [row for key, row in rows.items() if key.startswith(f"{EDGE}.")]
    if edge_rows:
        measured = [row.errors for row in edge_rows if not row.workload.error]
        targets.append(
            _target(
                "non-2xx under load through the edge = 0",
                sum(measured) if measured else None,
                0,
                at_least=False,
            )
        )
    return targets


def _target(
    name: str, value: float | None, limit: float, *, at_least: bool, by_cpu: float | None = None
) -> dict:
    if value is None:
        verdict = "not measured"
    else:
        verdict = "met" if (value >= limit if at_least else value <= limit) else "NOT met"
    return {"target": name, "value": value, "verdict": verdict, "by_cpu": by_cpu}


def _cpu_ratio(rows: dict[str, Row], service: str, baseline: str) -> float | None:
    """The req/s ratio the workers' CPU per request predicts; steadier on a busy machine."""
    if service not in rows or baseline not in rows:
        return None
    return _ratio(rows[baseline].cpu_ms, rows[service].cpu_ms)


def _targets(rps, p50, rows: dict[str, Row], servers: dict[str, Server]) -> list[dict]:

    # Throughput: the service's req/s as a share of a baseline's, with the share its CPU predicts.
    throughput = [
        ("GET article ≥ 0.8 x floor req/s", "service.get_article", "floor.get_article", 0.8),
        ("GET page (size 10) ≥ 0.6 x floor req/s", "service.page_1_10", "floor.page_1_10", 0.6),
        ("SOAP POST ≥ 0.6 x lxml limit req/s", "service.soap_post", "soap_limit.soap_post", 0.6),
        (
            "SOAP POST ahead of spyne (> 1 x spyne req/s)",
            "service.soap_post",
            "spyne.soap_post",
            1.0000001,
        ),
        (
            "PUT article (If-Match) ≥ 0.35 x GET article req/s",
            "service.put_article",
            "service.get_article",
            0.35,
        ),
        (
            "POST article ≥ 0.35 x GET article req/s",
            "service.post_article",
            "service.get_article",
            0.35,
        ),
        (
            "PUT with one webhook subscription ≥ 0.8 x without",
            "service_hooked.put_article",
            "service.put_article",
            0.8,
        ),
        (
            "POST with one webhook subscription ≥ 0.8 x without",
            "service_hooked.post_article",
            "service.post_article",
            0.8,
        ),
    ]
    targets = [
        _target(
            name,
            _ratio(rps(service), rps(baseline)),
            limit,
            at_least=True,
            by_cpu=_cpu_ratio(rows, service, baseline),
        )
        for name, service, baseline, limit in throughput
    ]
    targets += [
        _target(
            "GraphQL film(6) p50 ≤ 2 x hello p50",
            _ratio(p50("service.graphql_film"), p50("service.graphql_hello")),
            2.0,
            at_least=False,
        ),
        _target(
            f"scale blog: two-word search, page of 10, p50 ≤ {SEARCH_P50_MS:.0f} ms (PostgreSQL)",
            p50("service_scale.search_10"),
            SEARCH_P50_MS,
            at_least=False,
        ),
        _target(
            f"scale blog: one-word search, page of 10, p50 ≤ {BROAD_SEARCH_P50_MS:.0f} ms"
            " (PostgreSQL)",
            p50("service_scale.search_word_10"),
            BROAD_SEARCH_P50_MS,
            at_least=False,
        ),
        _target(
            f"scale: one-word search across blogs, page of 10, p50 ≤ {BROAD_SEARCH_P50_MS:.0f} ms"
            " (PostgreSQL)",
            p50("service_scale.search_all_word_10"),
            BROAD_SEARCH_P50_MS,
            at_least=False,
        ),
        _target(
            "scale blog: last page p50 ≤ 3 x page 1 p50 (PostgreSQL)",
            _ratio(p50("service_scale.page_last_10"), p50("service_scale.page_1_10")),
            3.0,
            at_least=False,
        ),
    ]
    targets += _sorted_page_targets(p50, rows)
    service_errors = [
        row.errors
        for key, row in rows.items()
        if key.startswith("service") and not row.workload.error
    ]
    failed = [key for key, row in rows.items() if key.startswith("service") and row.workload.error]
    errors = sum(service_errors) if service_errors else None
    targets.append(_target("non-2xx under load on the service = 0", errors, 0, at_least=False))
    if failed:
        targets.append(
            {
                "target": "every service workload answers correctly",
                "value": len(failed),
                "verdict": "NOT met: " + ", ".join(failed),
            }
        )
    services = [
        servers[name]
        for name in ("service", "service_scale")
        if name in servers and servers[name].memory_by_round
    ]
    if services:
        last = [w for server in services for w in server.memory_by_round[-1]]
        growths = [
            g for g in (_growth(server.memory_by_round) for server in services) if g is not None
        ]
        targets.append(
            _target(
                f"service worker RSS ≤ {MEMORY_LIMIT_MB:.0f} MiB after the run",
                max((w.get("rss_mb", 0) for w in last), default=None),
                MEMORY_LIMIT_MB,
                at_least=False,
            )
        )
        targets.append(
            _target(
                f"no RSS growth across rounds (≤ {MEMORY_GROWTH_MB:.0f} MB, first to last round)",
                max(growths, default=None),
                MEMORY_GROWTH_MB,
                at_least=False,
            )
        )
    return targets


def _peer_targets(rps, rows: dict[str, Row]) -> list[dict]:
    """Issue 30: each write of the service ahead of the DRF peer's same write; the peer's
    answers all 2xx (else its req/s is not that of the write)."""
    targets = [
        _target(
            f"{label} ≥ {PEER_LEAD} x the DRF peer req/s",
            _ratio(rps(f"service.{name}"), rps(f"{PEER}.{name}")),
            PEER_LEAD,
            at_least=True,
            by_cpu=_cpu_ratio(rows, f"service.{name}", f"{PEER}.{name}"),
        )
        for name, label in PEER_WRITES.items()
    ]
    peer_rows = [row for key, row in rows.items() if key.startswith(f"{PEER}.")]
    if peer_rows:
        measured = [row.errors for row in peer_rows if not row.workload.error]
        targets.append(
            _target(
                "non-2xx under load on the peer = 0",
                sum(measured) if measured else None,
                0,
                at_least=False,
            )
        )
    return targets


def _sorted_page_targets(p50, rows: dict[str, Row]) -> list[dict]:
    """Issue 27: each sorted page's p50 (one connection), and the slowest random page."""
    targets = []
    for sort in SCALE_SORTS:
        for where in ("first", "middle", "last"):
            limit = SORTED_ANY_P50_MS if where == "middle" else SORTED_END_P50_MS
            targets.append(
                _target(
                    f"scale blog: sort={sort} {where} page p50 ≤ {limit:.0f} ms (1 connection)",
                    p50(f"service_scale.{sorted_page_name(sort, where)}"),
                    limit,
                    at_least=False,
                )
            )
    row = rows.get(RANDOM_PAGES)
    slowest = max((r["max_ms"] for r in row.workload.rounds), default=None) if row else None
    targets.append(
        _target(
            f"scale blog: random pages of every order, slowest ≤ {SLOWEST_PAGE_MS:.0f} ms",
            slowest,
            SLOWEST_PAGE_MS,
            at_least=False,
        )
    )
    return targets


def _store_targets(rps, rows: dict[str, Row], *, redis: bool) -> list[dict]:
    """Issue 26: reads without Redis near those with it; a full store costs what an empty does.
    The workers' CPU leaves out the database's, which the store adds to: read it with care."""
    targets = []
    for name, label in (("get_article", "GET article"), ("page_1_10", "GET page (size 10)")):
        ours, theirs = f"{STORE}.{name}", f"service.{name}"
        target = _target(
            f"{label} without Redis ≥ {WITHOUT_REDIS} x with Redis req/s",
            _ratio(rps(ours), rps(theirs)) if redis else None,
            WITHOUT_REDIS,
            at_least=True,
            by_cpu=_cpu_ratio(rows, ours, theirs) if redis else None,
        )
        if not redis:
            target["verdict"] = "not measured: the service had no Redis"
        targets.append(target)
    for name, label in (("get_article", "GET article"), ("put_article", "PUT article (If-Match)")):
        full, empty = f"{STORE}.{name}{FULL_STORE}", f"{STORE}.{name}"
        entries = rows[full].workload.store_entries if full in rows else DEFAULT_ENTRIES
        targets.append(
            _target(
                f"{label} without Redis, store of {entries:,} entries"
                f" ≥ {FULL_STORE_COST} x empty store req/s",
                _ratio(rps(full), rps(empty)),
                FULL_STORE_COST,
                at_least=True,
                by_cpu=_cpu_ratio(rows, full, empty),
            )
        )
    return targets


def _growth(memory_by_round: list[list[dict]]) -> float | None:
    """Largest RSS growth of one worker between the first and the last round it lived through."""
    if len(memory_by_round) < 2:
        return None
    first = {w["pid"]: w.get("rss_mb", 0) for w in memory_by_round[0]}
    last = {w["pid"]: w.get("rss_mb", 0) for w in memory_by_round[-1]}
    common = first.keys() & last.keys()
    if not common:
        return None
    return max(last[pid] - first[pid] for pid in common)


def _memory(servers: dict[str, Server]) -> list[dict]:
    memory = []
    for name, server in servers.items():
        if not server.memory_by_round:
            continue
        pids = [{w["pid"] for w in workers} for workers in server.memory_by_round]
        memory.append(
            {
                "server": name,
                "rss_mb_by_round": [
                    [w.get("rss_mb") for w in workers] for workers in server.memory_by_round
                ],
                "last": server.memory_by_round[-1],
                "growth_mb": _growth(server.memory_by_round),
                "workers_replaced": any(p != pids[0] for p in pids),
            }
        )
    return memory


def markdown(result: dict, context: dict) -> str:
    lines = [
        f"Benchmark {context['started']} · {context['mode']} · database {context['database']}"
        f" · cache {context['cache']}",
        f"gunicorn: {context['gunicorn']} · wrk: {context['wrk']} · {context['machine']}",
        "",
        "| workload | server | req/s | p50 ms | p99 ms | errors | CPU ms/req | x limit "
        "| x floor/spyne | note |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in result["table"]:
        if row["error"]:
            lines.append(
                f"| {row['workload']} | {row['server']} | ERROR | | | | | | | {row['error']} |"
            )
            continue
        cpu = "" if row["cpu_ms_per_request"] is None else f"{row['cpu_ms_per_request']:.2f}"
        req_s = "" if row["rps"] is None else f"{row['rps']:.0f}"
        x_limit = "" if row["x_limit"] is None else f"{row['x_limit']:.2f}"
        x_other = "" if row["x_floor_or_spyne"] is None else f"{row['x_floor_or_spyne']:.2f}"
        lines.append(
            f"| {row['workload']} | {row['server']} | {req_s} | {row['p50_ms']:.2f} "
            f"| {row['p99_ms']:.2f} | {row['errors']} | {cpu} | {x_limit} | {x_other} "
            f"| {row['note']} |"
        )
    lines += ["", "| target | measured | by worker CPU/req | verdict |", "|---|---:|---:|---|"]
    for target in result["targets"]:
        value, by_cpu = target["value"], target.get("by_cpu")
        shown = "" if value is None else (f"{value:.2f}" if isinstance(value, float) else value)
        cpu = "" if by_cpu is None else f"{by_cpu:.2f}"
        lines.append(f"| {target['target']} | {shown} | {cpu} | {target['verdict']} |")
    lines += [
        "",
        # PSS beside RSS: RSS counts the pages a worker shares with the master (and its
        # siblings) in every worker, PSS divides them among those that map them: what hosts are
        # sized by (docs/decisions/writes-and-memory-targets.md).
        "| server | worker RSS MiB after each round | PSS / USS MiB after the last "
        "| growth MiB | workers replaced |",
        "|---|---|---|---:|---|",
    ]
    for entry in result["memory"]:
        rounds = " → ".join(
            "/".join(f"{v:.0f}" for v in workers if v is not None)
            for workers in entry["rss_mb_by_round"]
        )
        shares = ", ".join(
            f"{w['pss_mb']:.0f} / {w['uss_mb']:.0f}"
            for w in entry["last"]
            if "pss_mb" in w  # a worker gone before it was read has its pid alone
        )
        growth = "" if entry["growth_mb"] is None else f"{entry['growth_mb']:+.1f}"
        replaced = "yes" if entry["workers_replaced"] else "no"
        lines.append(f"| {entry['server']} | {rounds} | {shares} | {growth} | {replaced} |")
    return "\n".join(lines) + "\n"
