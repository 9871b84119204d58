"""Medians over rounds, ratios against the baselines of the same run, the targets, the tables."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from bench.servers import Server
from bench.workloads import Workload

# Which baseline each service workload is compared with: (limit key, floor or spyne key).
REST_BASELINES = {
    "get_article": ("get_article", "get_article"),
    "page_1_10": ("page_1_10", "page_1_10"),
    "page_1_100": ("page_1_100", "page_1_100"),
    # Writes have no write baseline; they are set against the read of one article.
    "put_article": ("get_article", "get_article"),
    "post_article": ("get_article", "get_article"),
}
MEMORY_LIMIT_MB = 120.0
# Issue 18: a two-word search over the 1,000,000-article blog answers a page of 10 in this.
SEARCH_P50_MS = 50.0
MEMORY_GROWTH_MB = 2.0


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


def build(workloads: list[Workload], servers: dict[str, Server]) -> dict:
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
        if server == "service_scale":
            versus_other = _ratio(row.rps, rps(f"floor_scale.{name}"))
            if name != "page_1_10":
                note = f"p50 {_fmt(_ratio(row.p50, p50('service_scale.page_1_10')))} x page 1's"
        elif server == "service" and name in REST_BASELINES:
            limit_name, floor_name = REST_BASELINES[name]
            versus_limit = _ratio(row.rps, rps(f"limit.{limit_name}"))
            versus_other = _ratio(row.rps, rps(f"floor.{floor_name}"))
            if limit_name != name:
                note = "ratios against GET article"
        elif server == "service_hooked":
            # The same write on a blog with one subscription, against the blog with none.
            versus_other = _ratio(row.rps, rps(f"service.{name}"))
            note = "second ratio: against the same write with no subscription"
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
    return {
        "table": table,
        "targets": _targets(rps, p50, rows, servers),
        "memory": _memory(servers),
    }


def _target(
    name: str, value: float | None, limit: float, *, at_least: bool, by_cpu: float | None = None
) -> dict:
    if value is None:
        verdict = "not measured"
    else:
        verdict = "met" if (value >= limit if at_least else value <= limit) else "NOT met"
    return {"target": name, "value": value, "verdict": verdict, "by_cpu": by_cpu}


def _targets(rps, p50, rows: dict[str, Row], servers: dict[str, Server]) -> list[dict]:
    def cpu_ratio(service: str, baseline: str) -> float | None:
        """The req/s ratio the workers' CPU per request predicts; steadier on a busy machine."""
        if service not in rows or baseline not in rows:
            return None
        return _ratio(rows[baseline].cpu_ms, rows[service].cpu_ms)

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
            by_cpu=cpu_ratio(service, baseline),
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
            "scale blog: last page p50 ≤ 3 x page 1 p50 (PostgreSQL)",
            _ratio(p50("service_scale.page_last_10"), p50("service_scale.page_1_10")),
            3.0,
            at_least=False,
        ),
    ]
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
                f"service worker RSS ≤ {MEMORY_LIMIT_MB:.0f} MB after the run",
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
        x_limit = "" if row["x_limit"] is None else f"{row['x_limit']:.2f}"
        x_other = "" if row["x_floor_or_spyne"] is None else f"{row['x_floor_or_spyne']:.2f}"
        lines.append(
            f"| {row['workload']} | {row['server']} | {row['rps']:.0f} | {row['p50_ms']:.2f} "
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
        "| server | worker RSS MiB after each round | growth MiB | workers replaced |",
        "|---|---|---:|---|",
    ]
    for entry in result["memory"]:
        rounds = " → ".join(
            "/".join(f"{v:.0f}" for v in workers if v is not None)
            for workers in entry["rss_mb_by_round"]
        )
        growth = "" if entry["growth_mb"] is None else f"{entry['growth_mb']:+.1f}"
        replaced = "yes" if entry["workers_replaced"] else "no"
        lines.append(f"| {entry['server']} | {rounds} | {growth} | {replaced} |")
    return "\n".join(lines) + "\n"
