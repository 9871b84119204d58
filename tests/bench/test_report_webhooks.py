"""The benchmark's rows with one webhook subscription are set against the same writes without."""

from __future__ import annotations

from bench import report
from bench.workloads import article_post, article_put
from tests.bench import measured


def test_the_rows_with_a_subscription_are_compared_with_the_same_write_without():
    workloads = [
        measured(article_put("service", [1], "t"), 100.0, 10.0),
        measured(article_post("service", "t"), 80.0, 8.0),
        measured(article_put("service_hooked", [1], "t"), 90.0, 12.5),
        measured(article_post("service_hooked", "t"), 40.0, 16.0),
    ]
    result = report.build(workloads, {})
    rows = {row["key"]: row for row in result["table"]}
    assert rows["service_hooked.put_article"]["x_floor_or_spyne"] == 0.9
    assert rows["service_hooked.post_article"]["x_floor_or_spyne"] == 0.5
    assert "no subscription" in rows["service_hooked.post_article"]["note"]
    targets = {target["target"]: target for target in result["targets"]}
    put = targets["PUT with one webhook subscription ≥ 0.8 x without"]
    post = targets["POST with one webhook subscription ≥ 0.8 x without"]
    assert (put["value"], put["verdict"], put["by_cpu"]) == (0.9, "met", 0.8)
    assert (post["value"], post["verdict"], post["by_cpu"]) == (0.5, "NOT met", 0.5)


def test_without_the_webhook_rows_their_targets_say_not_measured():
    workloads = [measured(article_put("service", [1], "t"), 100.0, 10.0)]
    targets = {t["target"]: t for t in report.build(workloads, {})["targets"]}
    assert targets["PUT with one webhook subscription ≥ 0.8 x without"]["verdict"] == "not measured"
