"""The real parts behind webhooks, for the end-to-end tests and the benchmark.

- `RedisServer`: an own redis-server on a free loopback port, the Celery broker, that a test can
  stop and start again on the same port (nothing persisted: what was queued is lost, as when a
  broker dies, so only the outbox relay can bring it back).
- `CeleryProcess`: `celery -A config worker` or `beat` with production settings, in its own
  process group so that it can be SIGKILLed mid-task (the pool with it) and started again.
- `Receiver`: an HTTP server on 127.0.0.1 in a thread that records every request and answers from
  a script (500, 500, then 200; or a `Hold` that keeps the request open until released).

Standard library only (the benchmark uses it too); the pytest fixtures are in webhook_fixtures.py.
Every process is started with PR_SET_PDEATHSIG, so it dies with the test process even when that
one is killed, and in its own session, so that stopping it never touches anything else.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.groups import stop_group
from tests.support.servers import BASE_DIR, free_port

REDIS_SERVER = shutil.which("redis-server")
UNITS = BASE_DIR / "deploy" / "systemd"
UNIT_CELERY = "/srv/blog-service/.venv/bin/celery"
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGKILL when the process that started it ends (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def service_env(**extra: str) -> dict[str, str]:
    """The clean production environment the service's processes get (as GunicornServer's)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "SECRET_KEY": "reliability-tests-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


def wait_until(condition: Callable[[], object], *, timeout: float, what: str) -> object:
    """Poll `condition` until it returns something true; AssertionError naming `what` after
    `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def unit_command(unit: str, schedule: Path) -> tuple[list[str], dict[str, str]]:
    """A shipped systemd unit's ExecStart after `celery -A config` and its Environment=: the
    ${VARIABLES} expanded from it, %H and the beat schedule's path replaced (for CeleryProcess
    with `exact`, the environment given to it as well)."""
    text = (UNITS / unit).read_text().replace("\\\n", " ")
    environment: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("Environment="):
            environment.update(p.split("=", 1) for p in line.removeprefix("Environment=").split())
    line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    assert words[:3] == [UNIT_CELERY, "-A", "config"], words
    expanded = []
    for word in words[3:]:
        word = re.sub(r"\$\{(\w+)\}", lambda match: environment[match[1]], word)
        word = word.replace("%H", socket.gethostname())
        expanded.append(word.replace("/var/lib/blog-service-beat/schedule", str(schedule)))
    return expanded, environment


@dataclass
class RedisServer:
    """redis-server on 127.0.0.1:`port`, no persistence; `stop()` and `start()` again."""

    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @staticmethod
    def available() -> bool:
        return REDIS_SERVER is not None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self, *, ready_timeout: float = 15.0) -> RedisServer:
        if REDIS_SERVER is None:
            raise FileNotFoundError("redis-server is not installed")
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--logfile", "", "--loglevel", "warning"]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        wait_until(self.ping, timeout=ready_timeout, what=f"redis-server on port {self.port}")
        return self

    def ping(self) -> bool:
        if self.process is None or self.process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """SIGKILL: the broker vanishes as in a crash; the port is free again at once."""
        if self.process is not None:
            stop_group(self.process, first=signal.SIGKILL, grace=5)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class CeleryProcess:
    """`celery -A config <args>` with `env` added to a clean production environment.

    `args` is e.g. ["worker", "--concurrency=2"] or ["beat"]; the harness adds the log level, and
    for beat a schedule file and no pid file in a temporary folder, unless `exact` (the command
    line of a systemd unit, run as written).
    """

    env: dict[str, str]
    args: list[str]
    exact: bool = False
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="celery-")))

    @property
    def kind(self) -> str:
        return self.args[0]

    def command(self) -> list[str]:
        command = [sys.executable, "-m", "celery", "-A", "config", *self.args]
        if self.exact:
            return command
        command.append("--loglevel=INFO")
        if self.kind == "beat":
            command += ["--schedule", str(self.workdir / "schedule"), "--pidfile="]
        if self.kind == "worker":
            # A name of its own (the default is celery@host): several harness workers on one
            # machine never take each other for a duplicate.
            command += ["--hostname", f"harness-{os.getpid()}-{id(self)}@%h", "--without-mingle"]
            command += ["--without-gossip"]
        return command

    def start(self, *, ready_timeout: float = 60.0) -> CeleryProcess:
        handle, name = tempfile.mkstemp(prefix=f"celery-{self.kind}-", suffix=".log")
        self.log_path = Path(name)
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(
                self.command(),
                cwd=BASE_DIR,
                env=service_env(**self.env),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        ready = " ready." if self.kind == "worker" else "beat: Starting..."

        def started() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery {self.kind} exited at start:\n{self.log()}")
            return ready in self.log()

        try:
            wait_until(started, timeout=ready_timeout, what=f"celery {self.kind} to start")
        except AssertionError:
            log = self.log()
            self.stop()
            raise AssertionError(f"celery {self.kind} did not start:\n{log}") from None
        return self

    def kill(self) -> None:
        """SIGKILL the whole group (the main process and its pool) at once, as a crash would."""
        if self.process is not None:
            stop_group(self.process, first=signal.SIGKILL, grace=5)

    def stop(self) -> None:
        """SIGQUIT: Celery's cold shutdown (no waiting for the tasks in hand)."""
        if self.process is not None:
            stop_group(self.process, first=signal.SIGQUIT, grace=10)

    def restart(self) -> CeleryProcess:
        self.kill()
        return self.start()

    def log(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-20000:]


def peer_closed(connection: socket.socket) -> bool:
    """True when the other end has closed the connection (readable, and nothing to read)."""
    readable, _, _ = select.select([connection], [], [], 0)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@dataclass
class Hold:
    """A scripted answer that keeps the request open until `release()` (or `limit` seconds),
    then answers `status`; `arrived` is set when the request is in."""

    status: int = 200
    limit: float = 60.0
    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    at: float
    status: int | None = None  # the answer sent; None while held or when the client was gone
    verified: object = None  # what `Receiver.verify` returned, or the exception it raised

    @property
    def webhook_id(self) -> str | None:
        return self.headers.get("webhook-id")


class Receiver:
    """An HTTP server on 127.0.0.1 that records every request and answers from a script.

    `answer(500, 500)` queues answers for the next requests, one each, in order (an int is a
    status, a `Hold` keeps the request open); when the queue is empty, `default` (200) is sent.
    `verify`, when set, is called with (body, headers) as each request arrives, so a signature's
    timestamp is checked when it is fresh; its result (or the exception) is recorded.
    """

    def __init__(self, *, default: int = 200) -> None:
        self.default = default
        self.verify: Callable[[bytes, dict[str, str]], object] | None = None
        self.requests: list[Received] = []
        self.script: deque[int | Hold] = deque()
        self.holds: list[Hold] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler_class())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        for hold in self.holds:
            hold.release()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def answer(self, *answers: int | Hold) -> None:
        with self.lock:
            self.script.extend(answers)
            self.holds.extend(answer for answer in answers if isinstance(answer, Hold))

    def received(self) -> list[Received]:
        with self.lock:
            return list(self.requests)

    def wait_for(
        self, condition: Callable[[list[Received]], object], *, timeout: float, what: str
    ) -> list[Received]:
        try:
            wait_until(lambda: condition(self.received()), timeout=timeout, what=what)
        except AssertionError as error:
            seen = [(r.webhook_id, r.status) for r in self.received()][-20:]
            raise AssertionError(f"{error}; last requests (webhook-id, answer): {seen}") from None
        return self.received()

    def next_answer(self) -> int | Hold:
        with self.lock:
            return self.script.popleft() if self.script else self.default

    def record(self, request: Received) -> None:
        if self.verify is not None:
            try:
                request.verified = self.verify(request.body, request.headers)
            except Exception as error:  # recorded for the test to assert on
                request.verified = error
        with self.lock:
            self.requests.append(request)

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Received(
                    method=self.command,
                    path=self.path,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=self.rfile.read(length),
                    at=time.time(),
                )
                receiver.record(request)
                answer = receiver.next_answer()
                status = answer
                if isinstance(answer, Hold):
                    answer.arrived.set()
                    answer.released.wait(answer.limit)
                    status = answer.status
                    if peer_closed(self.connection):
                        return  # the sender died while held: nothing is answered
                body = b"received\n" if status < 400 else b"not now\n"
                # Recorded before the answer leaves: a client that has read it must find it.
                request.status = status
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    self.wfile.flush()
                except OSError:
                    request.status = None  # the sender is gone (a killed worker)

            do_PUT = do_GET = do_DELETE = do_PATCH = do_POST

            def log_message(self, format: str, *args: object) -> None:
                pass  # the test reads `requests`, not a log

        return Handler


# What the harness sets for every process of the service (gunicorn, worker, beat): loopback targets
# allowed (the receiver is on 127.0.0.1), and retries, the relay and the requeueing of a delivery
# whose worker died in seconds, not minutes.
WEBHOOK_TEST_SETTINGS = {
    "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
    "WEBHOOK_RETRY_BASE_SECONDS": "1",
    "WEBHOOK_RETRY_MAX_SECONDS": "4",
    "WEBHOOK_RELAY_SECONDS": "1",
    "WEBHOOK_REQUEUE_AFTER_SECONDS": "10",
    # A worker's lease on a delivery is 3 x this + 5 s: a killed worker's is over in 20 s.
    "WEBHOOK_TIMEOUT_SECONDS": "5",
    "CELERY_VISIBILITY_TIMEOUT_SECONDS": "30",
}
