"""The benchmark's writes against the DRF peer (issue 30): its rows, which articles each writes,
and the targets (each service write ≥ 1.2 x the peer's, by req/s and by worker CPU/req)."""

from __future__ import annotations

from bench import loadgen, report
from bench.run import _workloads, parse_args
from bench.workloads import MISSING_ID, article_get, article_post, article_put, comment_post
from tests.bench import measured


def workloads_of(argv: list[str]):
    args = parse_args(["--no-webhooks", "--no-scale", *argv])
    put_ids = list(range(101, 126))  # 3 x 8 connections, then the edge's
    return _workloads(args, 7, put_ids, 6, "t", 0, {"service": None, "peer": None}, None)


def test_only_picks_the_comment_rows_of_both_servers_on_the_comment_article():
    workloads = workloads_of(["--only", "service.post_comment,peer.post_comment"])

    assert [w.key for w in workloads] == ["service.post_comment", "peer.post_comment"]
    assert {w.path for w in workloads} == {"/api/v1.2/blogs/1/articles/6/comments"}
    assert {(w.method, w.expected_status, w.error) for w in workloads} == {("POST", 201, None)}


def test_the_peer_puts_its_own_articles_and_each_write_follows_the_services():
    workloads = workloads_of(["--only", "put_article,post_article,post_comment"])

    keys = [w.key for w in workloads]
    assert keys[:6] == [
        "service.put_article",
        "peer.put_article",
        "service.post_article",
        "peer.post_article",
        "service.post_comment",
        "peer.post_comment",
    ]
    ids = {w.key: set(w.env["BENCH_PUT_IDS"].split(",")) for w in workloads if "put" in w.key}
    assert ids["peer.put_article"] == {str(n) for n in range(117, 125)}
    assert not ids["peer.put_article"] & ids["service.put_article"]
    assert not ids["peer.put_article"] & ids["service_db.put_article"]


def test_each_write_is_set_against_the_peers_by_req_s_and_by_cpu():
    workloads = [
        measured(article_get("floor", 7), 1000.0, 1.0),
        measured(article_put("service", [1], "t"), 130.0, 10.0),
        measured(article_put("peer", [2], "t"), 100.0, 13.0),
        measured(article_post("service", "t"), 90.0, 10.0),
        measured(article_post("peer", "t"), 100.0, 9.0),
        measured(comment_post("service", 6, "t"), 240.0, 4.0),
        measured(comment_post("peer", 6, "t"), 200.0, 6.0),
    ]

    result = report.build(workloads, {})

    targets = {target["target"]: target for target in result["targets"]}
    put = targets["PUT article (If-Match) ≥ 1.2 x the DRF peer req/s"]
    post = targets["POST article ≥ 1.2 x the DRF peer req/s"]
    comment = targets["POST comment ≥ 1.2 x the DRF peer req/s"]
    assert (put["value"], put["by_cpu"], put["verdict"]) == (1.3, 1.3, "met")
    assert (post["value"], post["by_cpu"], post["verdict"]) == (0.9, 0.9, "NOT met")
    assert (comment["value"], comment["by_cpu"], comment["verdict"]) == (1.2, 1.5, "met")
    assert targets["non-2xx under load on the peer = 0"]["verdict"] == "met"
    rows = {row["key"]: row for row in result["table"]}
    assert rows["service.put_article"]["note"] == "ratios against GET article; 1.30 x peer; 412: 0"
    assert rows["peer.put_article"]["x_floor_or_spyne"] == 0.1  # against the floor's GET article
    assert rows["peer.post_comment"]["note"] == "ratios against GET article"


def test_without_the_peers_rows_its_targets_are_not_measured():
    workloads = [measured(article_put("service", [1], "t"), 130.0, 10.0)]

    targets = {t["target"]: t for t in report.build(workloads, {})["targets"]}

    assert targets["PUT article (If-Match) ≥ 1.2 x the DRF peer req/s"]["verdict"] == (
        "not measured"
    )
    assert "non-2xx under load on the peer = 0" not in targets


def test_the_comment_without_its_write_is_set_against_the_peers_whole_comment():
    [missing] = workloads_of(["--only", "service.comment_on_no_article"])
    assert (missing.method, missing.expected_status) == ("POST", 404)
    assert missing.path == f"/api/v1.2/blogs/1/articles/{MISSING_ID}/comments"
    workloads = [
        measured(comment_post("peer", 6, "t"), 200.0, 6.0),
        measured(missing, 300.0, 4.0),
    ]

    rows = {row["key"]: row for row in report.build(workloads, {})["table"]}

    note = rows["service.comment_on_no_article"]["note"]
    assert note == "no write: 1.50 x the peer's whole post_comment"


def test_the_put_without_its_write_is_set_against_the_peers_whole_put():
    [missing] = workloads_of(["--only", "service.put_on_no_article"])
    assert (missing.method, missing.expected_status, missing.script) == ("PUT", 404, "static")
    assert missing.path == f"/api/v1.2/blogs/1/articles/{MISSING_ID}"
    assert missing.headers["If-Match"] == "*" and missing.body
    workloads = [
        measured(article_put("peer", [6], "t"), 100.0, 9.0),
        measured(missing, 250.0, 4.0),
    ]

    rows = {row["key"]: row for row in report.build(workloads, {})["table"]}

    assert (
        rows["service.put_on_no_article"]["note"] == "no write: 2.50 x the peer's whole put_article"
    )


def test_a_workload_that_asks_for_an_error_counts_every_other_answer_as_one():
    raw = {
        "statuses": {"404": 90, "201": 7, "500": 3},
        "socket_errors": {"connect": 0},
        "requests": 100,
        "refreshes": 0,
        "duration_us": 1_000_000,
        **dict.fromkeys(("p50_us", "p90_us", "p99_us", "max_us"), 1000),
    }

    assert loadgen._summarise(raw, 404)["errors"] == 10
    assert loadgen._summarise(raw)["errors"] == 93  # a 2xx workload: every non-2xx
