"""The benchmark's rows of the service without Redis (issue 26): its reads against the same with
Redis, and reads and writes in a full store against the same in an empty one."""

from __future__ import annotations

from bench import report
from bench.workloads import article_get, article_put, page_get, with_full_store
from tests.bench import measured


def workloads():
    return [
        measured(article_get("service", 5), 1000.0, 2.0),
        measured(page_get("service", 10, total=20), 800.0, 2.5),
        measured(article_get("floor", 5), 1250.0, 1.6),
        measured(article_put("service", [1], "t"), 300.0, 6.0),
        measured(article_get("service_db", 5), 750.0, 2.5),
        measured(page_get("service_db", 10, total=20), 400.0, 4.0),
        measured(article_put("service_db", [2], "t"), 150.0, 8.0),
        measured(with_full_store(article_get("service_db", 5), 500_000), 720.0, 2.5),
        measured(with_full_store(article_put("service_db", [2], "t"), 500_000), 120.0, 10.0),
    ]


def test_reads_without_redis_are_set_against_the_same_reads_with_it():
    result = report.build(workloads(), {})

    rows = {row["key"]: row for row in result["table"]}
    assert rows["service_db.get_article"]["x_floor_or_spyne"] == 0.75
    assert "0.60 x floor" in rows["service_db.get_article"]["note"]
    assert rows["service_db.put_article"]["x_floor_or_spyne"] == 0.5
    targets = {target["target"]: target for target in result["targets"]}
    article = targets["GET article without Redis ≥ 0.7 x with Redis req/s"]
    page = targets["GET page (size 10) without Redis ≥ 0.7 x with Redis req/s"]
    assert (article["value"], article["verdict"], article["by_cpu"]) == (0.75, "met", 0.8)
    assert (page["value"], page["verdict"], page["by_cpu"]) == (0.5, "NOT met", 0.625)


def test_a_full_store_is_set_against_the_empty_one():
    result = report.build(workloads(), {})

    rows = {row["key"]: row for row in result["table"]}
    full = rows["service_db.get_article_full_store"]
    assert full["workload"] == "GET article, store of 500,000 entries"
    assert full["x_floor_or_spyne"] == 0.96
    assert "empty store" in full["note"]
    targets = {target["target"]: target for target in result["targets"]}
    get = targets["GET article without Redis, store of 500,000 entries ≥ 0.9 x empty store req/s"]
    put = targets[
        "PUT article (If-Match) without Redis, store of 500,000 entries ≥ 0.9 x empty store req/s"
    ]
    assert (get["value"], get["verdict"], get["by_cpu"]) == (0.96, "met", 1.0)
    assert (put["value"], put["verdict"], put["by_cpu"]) == (0.8, "NOT met", 0.8)


def test_without_redis_the_comparison_with_redis_is_not_measured():
    result = report.build(workloads(), {}, redis=False)

    targets = {target["target"]: target for target in result["targets"]}
    verdict = targets["GET article without Redis ≥ 0.7 x with Redis req/s"]["verdict"]
    assert verdict == "not measured: the service had no Redis"
    full = "GET article without Redis, store of 500,000 entries ≥ 0.9 x empty store req/s"
    assert targets[full]["verdict"] == "met"


def test_without_the_rows_their_targets_say_not_measured():
    result = report.build([measured(article_get("service", 5), 1000.0, 2.0)], {})

    verdicts = [t["verdict"] for t in result["targets"] if "without Redis" in t["target"]]
    assert verdicts == ["not measured"] * 4
