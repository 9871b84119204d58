"""Stopping process trees, for the clean-stop tests (tests/reliability/test_clean_stops.py).

- `stop_and_watch`: signal a process group (or, as systemd's KillMode=mixed does, only its main
  process), then watch until every process of the group, and every process the tree held before
  the signal, has exited; what is still there after the bound is reported, then SIGKILLed.
- `MakeTarget`: `make run` or `make serve` as a developer or operator types them, in a session of
  its own, with the environment given (the data in a temporary folder, not in the checkout).

Linux only (/proc). Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.groups import group_members, running
from tests.support.servers import BASE_DIR, free_port, http_request
from tests.support.webhooks import die_with_parent, wait_until


def as_typed_in_a_terminal() -> None:
    """preexec_fn of a MakeTarget: SIGINT and SIGQUIT at their defaults, as a shell in a terminal
    starts a command, whatever the test runner inherited. A runner started in the background of a
    non-interactive shell (`cmd &`) ignores both, and an ignored SIGINT is inherited across exec
    and cannot be trapped again by a shell: Ctrl-C could never stop what it starts. Also
    die_with_parent."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    die_with_parent()


def descendants(pid: int) -> set[int]:
    """The process's children, their children and so on, read from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                for child in map(int, task.read_text().split()):
                    if child not in found:
                        found.add(child)
                        todo.append(child)
    return found


def describe(pids: set[int]) -> list[str]:
    """The `pid command line` of each process still running, for an assertion's message."""
    lines = []
    for pid in sorted(pids):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            lines.append(f"{pid} {command.strip()}")
    return lines


@dataclass
class Stop:
    seconds: float | None  # until the last process exited; None when some were still there
    left: list[str]  # what was still running after the bound ("pid command line")
    returncode: int | None  # of the main process (negative: the signal that ended it)


def stop_and_watch(
    process: subprocess.Popen, sig: signal.Signals, *, bound: float = 10.0, main_only: bool = False
) -> Stop:
    """Send `sig` to the process group of `process` (started with start_new_session), or to
    `process` alone with `main_only`; then wait up to `bound` seconds for every process of the
    group and of the tree (as it was before the signal) to exit. Whatever is left then is
    described in the result and SIGKILLed, so that a failing test leaves nothing behind."""
    pgid = process.pid
    tree = {pgid} | descendants(pgid) | group_members(pgid)
    started = time.monotonic()
    if main_only:
        process.send_signal(sig)
    else:
        os.killpg(pgid, sig)
    left: set[int] = set()
    while True:
        left = {pid for pid in tree if running(pid)} | group_members(pgid)
        if not left:
            seconds = time.monotonic() - started
            # The main process has exited (a zombie at most): ours to reap for its status.
            return Stop(seconds, [], process.wait(timeout=5))
        if time.monotonic() - started > bound:
            break
        time.sleep(0.05)
    description = describe(left)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    return Stop(None, description, process.returncode)


@dataclass
class MakeTarget:
    """`make <target> PORT=<port>` in the checkout, in a session of its own, with `env` as its
    whole environment (PATH added). `-o .venv/.installed`: the virtualenv is taken as installed;
    a test never installs anything."""

    target: str
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    log_path: Path | None = None

    def start(self, *, ready_timeout: float = 180.0) -> MakeTarget:
        handle, name = tempfile.mkstemp(prefix=f"make-{self.target}-", suffix=".log")
        self.log_path = Path(name)
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(
                ["make", "-o", ".venv/.installed", self.target, f"PORT={self.port}"],
                cwd=BASE_DIR,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=as_typed_in_a_terminal,
            )

        def healthy() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"make {self.target} exited at start:\n{self.log()}")
            try:
                return http_request(self.port, "GET", "/healthz", timeout=2).status == 200
            except OSError:
                return False

        try:
            wait_until(healthy, timeout=ready_timeout, what=f"make {self.target} to serve")
        except AssertionError:
            log = self.log()
            self.kill()
            raise AssertionError(f"make {self.target} did not start:\n{log}") from None
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)

    def log(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-20000:]
