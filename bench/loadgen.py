"""One wrk run, and the probe that checks a workload's answer before any load."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from bench.workloads import Response, Workload

LUA_DIR = Path(__file__).resolve().parent / "wrk"


def fetch(origin: str, workload: Workload, timeout: float = 10.0) -> Response:
    request = urllib.request.Request(
        origin + workload.path,
        data=workload.body or None,
        method=workload.method,
        headers=workload.headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.status, _lower(answer.headers), answer.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, _lower(error.headers), error.read())


def _lower(headers) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def probe(origin: str, workload: Workload) -> str | None:
    """None when the workload's request gets the right answer, else what went wrong."""
    try:
        return workload.check(fetch(origin, workload))
    except OSError as error:
        return f"no answer: {error}"


def run_wrk(wrk: str, origin: str, workload: Workload, *, seconds: float, connections: int) -> dict:
    """wrk with one thread per connection (the PUT script needs that; it costs nothing else)."""
    with tempfile.NamedTemporaryFile(prefix="bench-body-", delete=False) as body_file:
        body_file.write(workload.body)
    env = {
        **os.environ,
        **workload.env,
        "BENCH_LUA_DIR": str(LUA_DIR),
        "BENCH_METHOD": workload.method,
        "BENCH_HEADERS": "\n".join(f"{k}: {v}" for k, v in workload.headers.items()),
        "BENCH_BODY_FILE": body_file.name if workload.body else "",
    }
    command = [
        wrk,
        f"-t{connections}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA_DIR / f"{workload.script}.lua"),
        origin + workload.path,
    ]
    try:
        result = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=seconds + 30, check=False
        )
    finally:
        os.unlink(body_file.name)
    for line in result.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            return _summarise(
                json.loads(line.removeprefix("BENCH_JSON ")), workload.expected_status
            )
    raise RuntimeError(f"wrk gave no summary: {result.stderr.strip()[-300:]}")


def _summarise(raw: dict, expected: int = 200) -> dict:
    statuses = {int(status): n for status, n in raw["statuses"].items()}
    # A workload that asks for an error (a 404, say) counts the other answers instead.
    wanted = range(200, 300) if 200 <= expected < 300 else (expected,)
    unexpected = sum(n for status, n in statuses.items() if status not in wanted)
    socket_errors = sum(raw["socket_errors"].values())
    measured = raw["requests"] - raw["refreshes"]
    seconds = raw["duration_us"] / 1e6
    return {
        "rps": measured / seconds if seconds else 0.0,
        "requests": measured,
        "refreshes": raw["refreshes"],
        "p50_ms": raw["p50_us"] / 1000,
        "p90_ms": raw["p90_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "max_ms": raw["max_us"] / 1000,
        "statuses": statuses,
        "non_2xx": unexpected,
        "socket_errors": socket_errors,
        "errors": unexpected + socket_errors,
    }
