"""gunicorn's side of prometheus-client's multiprocess mode (config/gunicorn.conf.py calls it).

With PROMETHEUS_MULTIPROC_DIR set, every worker writes its values to its own files in that
directory and /metrics adds up all of them, the files of workers that have exited included, so
that counters never go back when a worker is replaced (max_requests, a crash, a reload).
Nothing here imports Django: the master runs it.
"""

from __future__ import annotations

import os
from pathlib import Path


def multiproc_dir() -> Path | None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(directory) if directory else None


def reset_directory() -> None:
    """At server start: the files of a previous run would add its counts to this one's. Only
    prometheus-client's own files (`*.db`) are removed, whatever else the directory holds."""
    directory = multiproc_dir()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for entry in directory.glob("*.db"):
        if entry.is_file():
            entry.unlink()


def worker_exited(pid: int) -> None:
    """A worker is gone: its live gauges stop counting (prometheus-client's own clean-up; the
    service's metrics are counters and histograms, whose files stay and keep adding up)."""
    directory = multiproc_dir()
    if directory is None:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, str(directory))
