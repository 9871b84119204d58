"""Shared by the report tests: a workload given one measured round."""


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
