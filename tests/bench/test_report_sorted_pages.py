"""The benchmark's sorted pages of the 1,000,000-article blog (issue 27): their rows, read with
one connection, and their targets (p50 ≤ 20 ms first and last, ≤ 60 ms middle; the slowest of
random pages ≤ 1 s)."""

from __future__ import annotations

from bench import report
from bench.run import _workloads, parse_args
from bench.workloads import random_pages_get, sorted_page_get

TOTAL = 1_000_000


def measured(workload, p50_ms: float, max_ms: float = 100.0):
    workload.rounds = [
        {
            "rps": 100.0,
            "p50_ms": p50_ms,
            "p99_ms": p50_ms * 2,
            "max_ms": max_ms,
            "errors": 0,
            "statuses": {200: 10},
            "cpu_ms_per_request": 5.0,
        }
    ]
    return workload


def test_the_scale_run_reads_first_middle_and_last_sorted_pages_with_one_connection():
    args = parse_args(["--no-webhooks"])
    workloads = _workloads(args, 1, [1] * 25, 2, "t", TOTAL, {"service_scale": None}, None)

    sorted_rows = {w.key: w for w in workloads if ".sorted_" in w.key}
    assert set(sorted_rows) == {
        f"service_scale.sorted_{sort}_{where}_10"
        for sort in ("title", "desc_created")
        for where in ("first", "middle", "last")
    }
    middle = sorted_rows["service_scale.sorted_title_middle_10"]
    assert middle.path == "/api/v1.2/blogs/1/articles?pageIndex=50000&pageSize=10&sort=title"
    last = sorted_rows["service_scale.sorted_desc_created_last_10"]
    assert last.path.endswith("pageIndex=100000&pageSize=10&sort=-created")
    assert {w.connections for w in sorted_rows.values()} == {1}
    (random_pages,) = [w for w in workloads if w.key == "service_scale.random_pages_10"]
    assert random_pages.connections is None  # the run's connections (8)
    assert random_pages.env["BENCH_PAGES"] == "100000"


def test_each_sorted_page_has_its_target_met_or_not():
    workloads = [
        measured(sorted_page_get("service_scale", "title", 1, total=TOTAL, where="first"), 8.0),
        measured(sorted_page_get("service_scale", "title", 5, total=TOTAL, where="middle"), 61.0),
        measured(sorted_page_get("service_scale", "title", 9, total=TOTAL, where="last"), 21.0),
        measured(
            sorted_page_get("service_scale", "-created", 5, total=TOTAL, where="middle"), 59.0
        ),
        measured(random_pages_get("service_scale", TOTAL), 40.0, max_ms=1200.0),
    ]

    result = report.build(workloads, {})

    targets = {target["target"]: target for target in result["targets"]}
    verdicts = {
        name.removeprefix("scale blog: "): (target["value"], target["verdict"])
        for name, target in targets.items()
        if "sort=" in name or "random" in name
    }
    assert verdicts == {
        "sort=title first page p50 ≤ 20 ms (1 connection)": (8.0, "met"),
        "sort=title middle page p50 ≤ 60 ms (1 connection)": (61.0, "NOT met"),
        "sort=title last page p50 ≤ 20 ms (1 connection)": (21.0, "NOT met"),
        "sort=-created first page p50 ≤ 20 ms (1 connection)": (None, "not measured"),
        "sort=-created middle page p50 ≤ 60 ms (1 connection)": (59.0, "met"),
        "sort=-created last page p50 ≤ 20 ms (1 connection)": (None, "not measured"),
        "random pages of every order, slowest ≤ 1000 ms": (1200.0, "NOT met"),
    }
    rows = {row["key"]: row for row in result["table"]}
    assert rows["service_scale.random_pages_10"]["note"] == "slowest 1200 ms"
    middle = rows["service_scale.sorted_title_middle_10"]["note"]
    assert middle == "p50 7.62 x its first page's"
    assert rows["service_scale.sorted_title_first_10"]["note"] == ""
