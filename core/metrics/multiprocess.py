"""gunicorn's side of prometheus-client's multiprocess mode (docs/production.md, "Metrics").
Nothing here imports Django: the master runs it."""

from __future__ import annotations

import os
from pathlib import Path


def multiproc_dir() -> Path | None:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(directory) if directory else None


def reset_directory() -> None:
    """At server start: a previous run's files (`*.db` only) would add to this one's counts."""
    directory = multiproc_dir()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for entry in directory.glob("*.db"):
        if entry.is_file():
            entry.unlink()


def worker_exited(pid: int) -> None:
    """prometheus-client's clean-up of a gone worker's gauges; counters' files stay."""
    directory = multiproc_dir()
    if directory is None:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, str(directory))
