"""The benchmark's rows through the edge (issue 28): hot reads against the floor, the token's row,
and the write-to-visible delay with its p50 and p99."""

from __future__ import annotations

from bench import report
from bench.edge import percentile
from bench.workloads import article_get, article_get_with_token, page_get
from tests.bench import context, measured


def workloads():
    return [
        measured(article_get("service", 5), 1200.0, 2.0),
        measured(article_get("floor", 5), 1500.0, 1.5),
        measured(page_get("floor", 10, total=20), 1000.0, 2.0),
        measured(article_get("edge", 5), 45000.0, 0.03),
        measured(page_get("edge", 10, total=20), 20000.0, 0.05),
        measured(article_get_with_token("edge", 5, "t"), 1080.0, 0.2),
    ]


def visible(delays, *, timeouts=0):
    return {
        "article": 7,
        "writes": len(delays),
        "delays_ms": delays,
        "timeouts": timeouts,
        "not_cached_before": 0,
        "poll_ms": 10.0,
    }


def test_the_reads_through_the_edge_are_set_against_the_floor():
    result = report.build(workloads(), {})

    rows = {row["key"]: row for row in result["table"]}
    assert rows["edge.get_article"]["x_floor_or_spyne"] == 30.0
    assert rows["edge.page_1_10"]["x_floor_or_spyne"] == 20.0
    token = rows["edge.get_article_token"]
    assert token["workload"] == "GET article with X-Access-Token"
    assert token["x_floor_or_spyne"] == 0.72
    assert "passes to the origin; 0.90 x the service's GET article" in token["note"]
    targets = {target["target"]: target for target in result["targets"]}
    article = targets["edge: GET article ≥ 25 x the floor req/s"]
    assert (article["value"], article["verdict"], article["by_cpu"]) == (30.0, "met", 50.0)
    assert targets["non-2xx under load through the edge = 0"]["verdict"] == "met"


def test_a_hot_article_under_25_times_the_floor_is_not_met():
    rows = workloads()
    rows[3] = measured(article_get("edge", 5), 30000.0, 0.03)
    targets = {t["target"]: t for t in report.build(rows, {})["targets"]}
    article = targets["edge: GET article ≥ 25 x the floor req/s"]
    assert (article["value"], article["verdict"]) == (20.0, "NOT met")


def test_the_write_to_visible_delay_is_a_row_with_its_p50_and_p99():
    delays = [float(n) for n in range(1, 101)]  # 1 to 100 ms
    result = report.build(workloads(), {}, visible=visible(delays))

    row = {row["key"]: row for row in result["table"]}["edge.write_to_visible"]
    assert (row["p50_ms"], row["p99_ms"], row["errors"]) == (50.5, 99.0, 0)
    assert "100 PUTs" in row["note"] and "every 10 ms" in row["note"]
    assert result["write_to_visible"]["delays_ms"] == delays
    targets = {t["target"]: t for t in result["targets"]}
    target = targets["edge: a write visible to anonymous GETs, p99 ≤ 1000 ms"]
    assert (target["value"], target["verdict"]) == (99.0, "met")
    table = report.markdown(result, context())
    assert "| PUT → visible through the edge | edge |  | 50.50 | 99.00 | 0 |" in table


def test_a_write_never_visible_fails_the_target():
    delays = [20.0] * 49 + [10000.0]
    result = report.build(workloads(), {}, visible=visible(delays, timeouts=1))

    targets = {t["target"]: t for t in result["targets"]}
    target = targets["edge: a write visible to anonymous GETs, p99 ≤ 1000 ms"]
    assert target["value"] == 10000.0
    assert target["verdict"] == "NOT met: 1 never visible within 10 s"


def test_p99_of_fifty_writes_is_the_slowest():
    assert percentile([float(n) for n in range(50, 0, -1)], 0.99) == 50.0
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert percentile([], 0.99) is None


def test_without_the_edge_rows_no_edge_target_is_added():
    result = report.build([measured(article_get("floor", 5), 1500.0, 1.5)], {})
    assert not [t for t in result["targets"] if t["target"].startswith("edge")]
    assert "write_to_visible" not in result
