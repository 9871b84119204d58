"""The bench's memory table: each worker's RSS after every round, and beside it the PSS and USS
after the last, which hosts are sized by (docs/decisions/writes-and-memory-targets.md)."""

from __future__ import annotations

from bench import report
from bench.servers import Server
from bench.workloads import article_get
from tests.bench import context, measured


def worker(pid: int, rss: float, pss: float, uss: float) -> dict:
    return {"pid": pid, "rss_mb": rss, "pss_mb": pss, "uss_mb": uss}


def test_the_memory_table_gives_pss_and_uss_beside_rss():
    service = Server("service", "config.wsgi:application", {}, "/healthz")
    service.memory_by_round = [
        [worker(11, 97.7, 61.0, 47.0), worker(12, 98.1, 61.5, 47.2)],
        [worker(11, 98.4, 62.2, 47.7), worker(12, 98.3, 62.1, 47.7)],
    ]

    result = report.build([measured(article_get("service", 5), 1000.0, 1.5)], {"service": service})
    table = report.markdown(result, context())

    assert "| service | 98/98 → 98/98 | 62 / 48, 62 / 48 | +0.7 | no |" in table
