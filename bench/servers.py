"""gunicorn instances for the service and its baselines, all with config/gunicorn.conf.py; and the
edge: varnishd with the service's VCL in front of a gunicorn of its own."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench import prepare

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONFIG = ROOT / "config" / "gunicorn.conf.py"
VCL = ROOT / "deploy" / "varnish" / "blog-service.vcl"
# The VCL's backend port (both backends, the origin and its probed twin): a start writes a copy
# with the origin's port instead, as `make serve-edge` does.
VCL_PORT = '.port = "8000";'


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    name: str
    app: str  # "module:callable" for gunicorn
    env: dict[str, str]
    ready_path: str
    # A venv of requirements.txt alone, as production installs (prepare.ensure_service_venv).
    gunicorn: Path = prepare.SERVICE_VENV / "bin" / "gunicorn"
    port: int = 0
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    error: str | None = None
    memory_by_round: list[list[dict]] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, log_dir: Path) -> None:
        self.port = free_port()
        self.log_path = log_dir / f"{self.name}.log"
        env = {**os.environ, **self.env, "BIND": f"127.0.0.1:{self.port}"}
        with open(self.log_path, "wb") as log:
            # A session of its own: on exit the whole group (master and workers) is signalled.
            self.process = subprocess.Popen(
                [str(self.gunicorn), "-c", str(GUNICORN_CONFIG), self.app],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                self.error = f"gunicorn exited at start-up; see {self.log_path}"
                return False
            try:
                with urllib.request.urlopen(self.origin + self.ready_path, timeout=2):
                    pass
                return True
            except urllib.error.HTTPError:
                return True  # it answers; whether that path exists is the probe's business
            except OSError:
                time.sleep(0.2)
        self.error = f"no answer within {timeout:.0f} s; see {self.log_path}"
        return False

    def settle(self, *, quick: float = 0.1, timeout: float = 30.0) -> float:
        """Wait until the server is idle again; returns the seconds waited.

        When wrk stops, requests it sent may still be running (a deep OFFSET page takes
        seconds); they would slow whatever is measured next. A request behind them waits in
        the same queue, so a quick answer means the backlog has drained.
        """
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            sent = time.monotonic()
            try:
                with urllib.request.urlopen(self.origin + self.ready_path, timeout=timeout):
                    pass
            except urllib.error.HTTPError:
                pass
            except OSError:
                return time.monotonic() - started
            if time.monotonic() - sent < quick:
                break
            time.sleep(0.05)
        return time.monotonic() - started

    def worker_pids(self) -> list[int]:
        if self.process is None or self.process.poll() is not None:
            return []
        master = self.process.pid
        children = Path(f"/proc/{master}/task/{master}/children")
        try:
            return sorted(int(pid) for pid in children.read_text().split())
        except OSError:
            return []

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the workers have used so far."""
        return sum(process_cpu_seconds(pid) for pid in self.worker_pids())

    def record_memory(self) -> list[dict]:
        workers = [worker_memory(pid) for pid in self.worker_pids()]
        self.memory_by_round.append(workers)
        return workers

    def stop(self, grace: float = 8.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        group = os.getpgid(self.process.pid)
        os.killpg(group, signal.SIGTERM)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            self.process.wait(timeout=5)


def varnishd() -> str | None:
    """Debian's varnishd (apt-get install varnish varnish-modules), or None."""
    found = shutil.which("varnishd") or "/usr/sbin/varnishd"
    return found if os.access(found, os.X_OK) else None


@dataclass
class Edge(Server):
    """varnishd (deploy/varnish/blog-service.vcl) on its own port in front of `backend`.

    Its port is chosen when it is made, not at start, because the backend's environment names it
    (EDGE_PURGE_URLS: where the purges go). The backend must be started first. "Workers" are
    varnishd's child (the cache process, every thread of it); the manager only supervises.
    """

    backend: Server | None = None
    memory: str = "256m"

    def __post_init__(self) -> None:
        self.port = self.port or free_port()

    def start(self, log_dir: Path) -> None:
        binary = varnishd()
        if binary is None or self.backend is None:
            self.error = "varnishd is not installed (apt-get install varnish varnish-modules)"
            return
        text = VCL.read_text()
        if text.count(VCL_PORT) != 2:
            self.error = f"{VCL} has not two lines `{VCL_PORT}` to point at the origin"
            return
        workdir = log_dir.parent / f"varnish-{self.name}"
        workdir.mkdir(parents=True, exist_ok=True)
        vcl = workdir / "edge.vcl"
        vcl.write_text(text.replace(VCL_PORT, f'.port = "{self.backend.port}";'))
        self.log_path = log_dir / f"{self.name}.log"
        command = [binary, "-F", "-f", str(vcl), "-a", f"127.0.0.1:{self.port}"]
        command += ["-n", str(workdir / "n"), "-s", f"malloc,{self.memory}", "-T", "none"]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, timeout: float = 30.0) -> bool:
        if self.error:
            return False
        if self.backend is not None and self.backend.error:
            self.error = f"its origin did not start: {self.backend.error}"
            return False
        ready = super().wait_ready(timeout)
        if not ready and self.error:
            self.error = self.error.replace("gunicorn", "varnishd")
        return ready


def process_cpu_seconds(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # Fields after the command name (which may hold spaces): utime and stime are the 12th and
    # 13th of them (proc(5) numbers them 14 and 15).
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_memory(pid: int) -> dict:
    """Resident memory of one process in MiB: RSS (what the targets name), and PSS/USS."""
    memory = {"pid": pid}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("Rss", "Pss", "Private_Clean", "Private_Dirty"):
                memory[key] = int(value.split()[0]) / 1024
    except OSError:
        return memory
    memory["Uss"] = memory.pop("Private_Clean", 0) + memory.pop("Private_Dirty", 0)
    return {
        "pid": pid,
        "rss_mb": round(memory["Rss"], 1),
        "pss_mb": round(memory["Pss"], 1),
        "uss_mb": round(memory["Uss"], 1),
    }
