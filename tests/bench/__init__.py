"""Shared by the report tests: a workload given one measured round, and a run's context."""


def measured(workload, rps: float, cpu_ms: float):
    workload.rounds = [
        {
            "rps": rps,
            "p50_ms": 10.0,
            "p99_ms": 20.0,
            "errors": 0,
            "statuses": {200: 10},
            "cpu_ms_per_request": cpu_ms,
        }
    ]
    return workload


def context() -> dict:
    """What bench.run hands report.markdown about the run."""
    return {
        "started": "2026-01-01T00:00:00Z",
        "mode": "quick",
        "database": "sqlite",
        "cache": "redis",
        "gunicorn": "gthread",
        "wrk": "wrk 4.1.0",
        "machine": "2 CPUs",
        "notes": [],
    }
