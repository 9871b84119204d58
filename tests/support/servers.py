"""Real gunicorn servers on loopback for the multi-process tests and the soak script.

Each server is the production entry point (`gunicorn -c config/gunicorn.conf.py config.wsgi`)
with production settings (`config.settings.base`, DEBUG off), started in its own process group so
that stopping it never touches anything else on the machine.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

BASE_DIR = Path(__file__).resolve().parent.parent.parent
GUNICORN_CONFIG = BASE_DIR / "config" / "gunicorn.conf.py"
GUNICORN = Path(sys.executable).with_name("gunicorn")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(settings_dict: dict, *, host: str | None = None, port: int | None = None) -> str:
    """A DATABASE_URL naming the same PostgreSQL database as Django's `settings_dict`."""
    user = quote(settings_dict.get("USER") or "postgres", safe="")
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}" if password else user
    host = host or settings_dict.get("HOST") or "127.0.0.1"
    port = port or int(settings_dict.get("PORT") or 5432)
    return f"postgres://{auth}@{host}:{port}/{settings_dict['NAME']}"


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage  # case-insensitive, like HTTP header names
    body: bytes

    def json(self):
        return json.loads(self.body)


@dataclass
class GunicornServer:
    """One gunicorn master and its workers; `env` is added to a clean production environment."""

    env: dict[str, str]
    workers: int = 2
    threads: int = 4
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    log_path: Path | None = None

    @staticmethod
    def config_exists() -> bool:
        return GUNICORN_CONFIG.exists()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *, ready_timeout: float = 90.0) -> GunicornServer:
        if not GUNICORN_CONFIG.exists():
            raise FileNotFoundError(f"{GUNICORN_CONFIG} is missing (the bench branch adds it)")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": "reliability-tests-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "ALLOWED_PORTS": "*",
            "PORT": str(self.port),
            "WEB_CONCURRENCY": str(self.workers),
            "GUNICORN_THREADS": str(self.threads),
            "GUNICORN_MAX_REQUESTS": "0",
            "GUNICORN_TIMEOUT": "30",
            "GUNICORN_GRACEFUL_TIMEOUT": "5",
            "LOG_LEVEL": "WARNING",
            **self.env,
        }
        handle, name = tempfile.mkstemp(prefix=f"gunicorn-{self.port}-", suffix=".log")
        self.log_path = Path(name)
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(
                [str(GUNICORN), "-c", str(GUNICORN_CONFIG), "config.wsgi"],
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited at start:\n{self.log()}")
            with contextlib.suppress(OSError):
                # Healthy, and every worker forked: gunicorn spawns them one after another, so
                # the first one can answer before the last exists.
                if (
                    self.request("GET", "/healthz", timeout=2).status == 200
                    and len(self.worker_pids()) >= self.workers
                ):
                    return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not become healthy in {ready_timeout} s:\n{self.log()}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        # SIGQUIT is gunicorn's quick shutdown: tests and the soak need no graceful drain.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGQUIT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)

    def __enter__(self) -> GunicornServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-8000:]

    def worker_pids(self) -> list[int]:
        """The master's children, read from /proc (Linux)."""
        assert self.process is not None
        master = self.process.pid
        children = []
        for task in Path(f"/proc/{master}/task").glob("*/children"):
            children.extend(int(pid) for pid in task.read_text().split())
        return sorted(children)

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | str | dict | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 10.0,
    ) -> Response:
        return http_request(self.port, method, path, body=body, headers=headers, timeout=timeout)


def http_request(
    port: int,
    method: str,
    path: str,
    *,
    body: bytes | str | dict | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> Response:
    headers = dict(headers or {})
    if isinstance(body, dict):
        body = json.dumps(body)
        headers.setdefault("Content-Type", "application/json")
    if isinstance(body, str):
        body = body.encode()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers)
        reply = connection.getresponse()
        return Response(reply.status, reply.headers, reply.read())
    finally:
        connection.close()


def rss_kib(pid: int) -> int:
    """Resident memory of a process in KiB (VmRSS from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
