"""Process groups on Linux (/proc): which of a group's processes are still running, and
stopping a whole group. Standard library only; tests/support/processes.py and webhooks.py use it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, process group) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[2])


def running(pid: int) -> bool:
    """True while the process has not exited (a zombie has: only its exit status is left)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def group_members(pgid: int) -> set[int]:
    """The processes of a process group that have not exited."""
    members = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pgid and stat[0] not in ("Z", "X"):
                members.add(int(entry.name))
    return members


def stop_group(process: subprocess.Popen, *, first: signal.Signals, grace: float) -> None:
    """Signal the process group, then SIGKILL it if it is still there after `grace` seconds;
    returns once no process of the group is left (a SIGKILL is delivered asynchronously: a pool
    child may run on for a moment after its leader was reaped, and answer a request)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, first)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    # The group may outlive its leader (a Celery pool child): SIGKILL whatever is left of it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    deadline = time.monotonic() + 10
    while group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
