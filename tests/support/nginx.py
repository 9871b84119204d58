"""nginx in front of a test gunicorn, from the configuration the repository ships
(deploy/nginx/blog-service.conf): the same file, with only its two ports replaced, inside a main
configuration that keeps every path in a temporary folder. Loopback only; stopped at exit."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.servers import BASE_DIR, free_port, http_request

SITE = BASE_DIR / "deploy" / "nginx" / "blog-service.conf"
INSTALL = ".ci/install-nginx (Debian's nginx-light; needs root)"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )


def site_for(upstream_port: int, listen_port: int) -> str:
    site = SITE.read_text()
    for shipped, local in (
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};"),
        ("listen 80;", f"listen 127.0.0.1:{listen_port};"),
    ):
        if shipped not in site:
            raise ValueError(f"{SITE} no longer has {shipped!r}")
        site = site.replace(shipped, local)
    return site


@dataclass
class Nginx:
    upstream_port: int
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    folder: Path | None = None

    def start(self) -> Nginx:
        binary = nginx_binary()
        if binary is None:
            raise FileNotFoundError(f"nginx is not installed: {INSTALL}")
        self.folder = Path(tempfile.mkdtemp(prefix="nginx-test-"))
        # Worker processes run as an unprivileged user when the master is root.
        self.folder.chmod(0o777)
        (self.folder / "site.conf").write_text(site_for(self.upstream_port, self.port))
        temp_paths = "\n".join(
            f"    {name}_temp_path {self.folder / name};"
            for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (self.folder / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {self.folder / 'nginx.pid'};\n"
            f"error_log {self.folder / 'error.log'} warn;\n"
            "events { worker_connections 512; }\n"
            f"http {{\n    access_log off;\n{temp_paths}\n"
            f"    include {self.folder / 'site.conf'};\n}}\n"
        )
        self.process = subprocess.Popen(
            [binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited at start:\n{self.error_log()}")
            with contextlib.suppress(OSError):
                if http_request(self.port, "GET", "/healthz", timeout=2).status == 200:
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"nginx did not answer in 10 s:\n{self.error_log()}")

    def error_log(self) -> str:
        path = self.folder / "error.log" if self.folder else None
        return path.read_text(errors="replace")[-4000:] if path and path.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Nginx:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
