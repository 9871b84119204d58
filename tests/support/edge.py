"""Varnish in front of a test origin, from the configuration the repository ships
(deploy/varnish/blog-service.vcl, with the parameters of deploy/varnish/varnishd.params): the
same file with only its origin port replaced, varnishd in the foreground on a free loopback port
with a work folder of its own. Stopped at exit.

- `Varnish`: varnishd; `stop()` and `start()` again on the same port (an empty cache then, as
  after a restart).
- `ScriptedOrigin`: a tiny HTTP origin in a thread that answers each path as the test says (the
  headers the service would send, or a failure) and records what reached it, for the tests of
  the VCL's own rules (tests/reliability/test_edge_vcl.py).

Standard library only. Skipped with INSTALL's command when varnishd is missing; CI installs it.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.servers import BASE_DIR, Response, free_port, http_request
from tests.support.webhooks import die_with_parent, wait_until

VCL = BASE_DIR / "deploy" / "varnish" / "blog-service.vcl"
PARAMS = BASE_DIR / "deploy" / "varnish" / "varnishd.params"
INSTALL = ".ci/install-varnish (Debian's varnish and varnish-modules; needs root)"
SHIPPED_PORT = '.port = "8000";'


def varnishd_binary() -> str | None:
    return shutil.which("varnishd") or (
        "/usr/sbin/varnishd" if Path("/usr/sbin/varnishd").exists() else None
    )


def vcl_for(origin_port: int, probe_port: int | None = None) -> str:
    """The shipped VCL with its two backends, the origin and its probe (in this order), on
    `origin_port`, or the probe on `probe_port`."""
    vcl = VCL.read_text()
    if vcl.count(SHIPPED_PORT) != 2:
        raise ValueError(f"{VCL} no longer has {SHIPPED_PORT!r} twice")
    vcl = vcl.replace(SHIPPED_PORT, f'.port = "{origin_port}";', 1)
    return vcl.replace(SHIPPED_PORT, f'.port = "{probe_port or origin_port}";')


def shipped_params() -> tuple[str, ...]:
    """The VARNISHD_PARAMS line of deploy/varnish/varnishd.params, split into words as systemd
    splits `$VARNISHD_PARAMS` (and make the variable)."""
    for line in PARAMS.read_text().splitlines():
        if line.startswith("VARNISHD_PARAMS="):
            return tuple(line.removeprefix("VARNISHD_PARAMS=").split())
    raise ValueError(f"{PARAMS} has no VARNISHD_PARAMS= line")


# A test's traffic is a few requests at a time: a small store and log, few threads. The
# benchmark passes its own (varnishd's defaults are 2 pools of 100 threads and an 80 MB log).
TEST_OPTIONS = ("-s", "malloc,64m", "-l", "8m", "-p", "thread_pools=1", "-p", "thread_pool_min=10")


@dataclass
class Varnish:
    """varnishd -F on 127.0.0.1:`port` in front of 127.0.0.1:`origin_port` (its health probe
    on `probe_port`, when given: a test that slows the origin's link does not make it sick), with
    the shipped parameters and then `options` (a later `-p` wins) on the command line."""

    origin_port: int
    port: int = field(default_factory=free_port)
    probe_port: int | None = None
    options: tuple[str, ...] = TEST_OPTIONS
    process: subprocess.Popen | None = None
    folder: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *, ready_timeout: float = 30.0) -> Varnish:
        binary = varnishd_binary()
        if binary is None:
            raise FileNotFoundError(f"varnishd is not installed: {INSTALL}")
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="varnish-test-"))
            # varnishd, started as root, runs its cache process as an unprivileged user.
            self.folder.chmod(0o755)
        vcl = self.folder / "blog-service.vcl"
        vcl.write_text(vcl_for(self.origin_port, self.probe_port))
        vcl.chmod(0o644)
        log = (self.folder / "varnishd.log").open("ab")
        with log:
            self.process = subprocess.Popen(
                [
                    binary,
                    "-F",
                    "-a",
                    f"127.0.0.1:{self.port}",
                    "-f",
                    str(vcl),
                    "-n",
                    str(self.folder / "work"),
                    "-T",
                    "none",
                    *shipped_params(),
                    *self.options,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )

        def answering() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"varnishd exited at start:\n{self.log()}")
            try:
                # Answered by Varnish itself, whether or not the origin is up.
                return self.purge("edge-test-ready").status == 200
            except OSError:
                return False

        try:
            wait_until(answering, timeout=ready_timeout, what=f"varnishd on port {self.port}")
        except (AssertionError, RuntimeError):  # timed out, or exited
            log = self.log()
            self.stop(keep_folder=False)
            raise AssertionError(f"varnishd did not start:\n{log}") from None
        return self

    def stop(self, *, keep_folder: bool = True) -> None:
        """SIGTERM (varnishd stops its cache process and exits), SIGKILL after 10 s."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        # The cache process may outlive the manager for a moment: nothing of the group stays.
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if not keep_folder and self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> Varnish:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop(keep_folder=False)

    def log(self) -> str:
        path = self.folder / "varnishd.log" if self.folder else None
        return path.read_text(errors="replace")[-8000:] if path and path.exists() else ""

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

    def purge(self, *keys: str) -> Response:
        """What the service's purge task sends: `PURGE /` with the keys to soft-purge."""
        return self.request("PURGE", "/", headers={"xkey-softpurge": " ".join(keys)})


def hit(reply: Response) -> bool:
    """Whether the edge answered from its cache (X-Cache, set by the shipped VCL)."""
    return reply.headers.get("X-Cache") == "HIT"


# --- a scripted origin -------------------------------------------------------------------------


@dataclass
class Answer:
    """What ScriptedOrigin answers for a path: a status, headers and a body; or, with `drop`, a
    connection closed without an answer. With `held`, the answer is made (the origin's version
    read) and then sent only once the event is set: a slow render, or a slow link."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    drop: bool = False
    held: threading.Event | None = None


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case


class ScriptedOrigin:
    """An HTTP/1.1 origin on 127.0.0.1: `answer(path, Answer)` sets what a path answers (the
    query string is part of the path); every other path is a 404. `version` is added to each body
    as `v<n>`, so a test sees which fetch an answer came from. `/healthz` answers 200, or 503
    while `sick`. Every request but the probe's is recorded in `seen`."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.seen: list[Seen] = []
        self.version = 1
        self.sick = False
        self.probes = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def __enter__(self) -> ScriptedOrigin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, answer: Answer) -> None:
        with self.lock:
            self.answers[path] = answer

    def fetches(self) -> Counter:
        """How many requests reached the origin, by path."""
        with self.lock:
            return Counter(seen.path for seen in self.seen)

    def last(self, path: str) -> Seen:
        with self.lock:
            return [seen for seen in self.seen if seen.path == path][-1]

    def wait_for_probes(self, count: int = 3, *, timeout: float = 15.0) -> None:
        """Until `count` more health probes have come (one a second): with three, the edge's
        window (3, threshold 2) holds only answers given since the call."""
        target = self.probes + count
        wait_until(lambda: self.probes >= target, timeout=timeout, what="the edge's probes")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if self.path == "/healthz":
                    origin.probes += 1
                    self._send(Answer(503 if origin.sick else 200))
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                with origin.lock:
                    origin.seen.append(
                        Seen(
                            self.command, self.path, {k.lower(): v for k, v in self.headers.items()}
                        )
                    )
                    answer = origin.answers.get(self.path, Answer(404))
                    version = origin.version
                if answer.drop:
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(2)
                    return
                body = answer.body or f"{self.path} v{version}\n".encode()
                if answer.held is not None:
                    answer.held.wait(timeout=60)
                self._send(answer, body)

            do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_GET

            def _send(self, answer: Answer, body: bytes = b"") -> None:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler


def until(condition, *, timeout: float, every: float = 0.02):
    """Poll `condition` until it returns something true; that value (None after `timeout`)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError):
            if result := condition():
                return result
        if time.monotonic() > deadline:
            return None
        time.sleep(every)


def request_from(
    port: int,
    address: str,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> Response:
    """A request from another loopback address (all of 127.0.0.0/8 is this machine): another
    client, as the server sees it."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(address, 0)
    )
    try:
        connection.request(method, path, headers=headers or {})
        reply = connection.getresponse()
        return Response(reply.status, reply.headers, reply.read())
    finally:
        connection.close()
