"""Our own PostgreSQL processes for the database-topology tests: a primary cluster with a
streaming replica (initdb, pg_basebackup -R), and pgbouncer in front of a server.

Everything lives in a temporary folder, listens on 127.0.0.1 on free ports, and is stopped by
the code that started it; the machine's own PostgreSQL is never touched. When the tests run as
root, the servers run as the `postgres` user (neither PostgreSQL nor pgbouncer runs as root).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.servers import free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PGBOUNCER = Path("/usr/sbin/pgbouncer")
PSQL = shutil.which("psql") or str(PG_BIN / "psql")


def server_user() -> str | None:
    """The OS user the servers run as: `postgres` under root, else whoever we are."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None
    return "postgres"


def missing_binaries(*names: str) -> list[str]:
    return [name for name in names if not (PG_BIN / name).exists()]


def _own_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    user = server_user()
    if user:
        shutil.chown(path, user, user)
    return path


def _run(args: list[str], **kwargs) -> str:
    result = subprocess.run(
        args, user=server_user(), capture_output=True, text=True, timeout=120, **kwargs
    )
    if result.returncode != 0:
        raise RuntimeError(f"{args[0]} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def psql(port: int, sql: str, *, database: str = "postgres") -> str:
    """One statement's result, unaligned and without headers (`psql -tA`)."""
    return _run(
        [
            PSQL,
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-U",
            "postgres",
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-tAc",
            sql,
        ]
    ).strip()


@dataclass
class Cluster:
    """One PostgreSQL server on a data directory of its own."""

    data: Path
    port: int = field(default_factory=free_port)

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def configure(self) -> None:
        settings = {
            "port": self.port,
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.data}'",
            "max_connections": 60,
            "shared_buffers": "'32MB'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())

    def start(self) -> Cluster:
        _run(
            [
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log_path),
                "-w",
                "-t",
                "60",
                "start",
            ]
        )
        return self

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            _run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    @property
    def log_path(self) -> Path:
        return self.data.parent / f"{self.data.name}.log"

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-4000:]
        return ""

    def sql(self, statement: str, *, database: str = "postgres") -> str:
        return psql(self.port, statement, database=database)


@dataclass
class ReplicatedPair:
    """A primary and a streaming hot standby of it, in one temporary folder."""

    root: Path = field(default_factory=lambda: _own_dir("pg-pair-"))
    primary: Cluster | None = None
    replica: Cluster | None = None

    def start(self) -> ReplicatedPair:
        self.primary = Cluster(self.root / "primary")
        _run(
            [
                str(PG_BIN / "initdb"),
                "-D",
                str(self.primary.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        self.primary.configure()
        self.primary.start()
        self.replica = Cluster(self.root / "replica")
        # -R writes standby.signal and primary_conninfo: the copy starts as a streaming standby.
        _run(
            [
                str(PG_BIN / "pg_basebackup"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.primary.port),
                "-U",
                "postgres",
                "-D",
                str(self.replica.data),
                "-R",
                "-X",
                "stream",
            ]
        )
        self.replica.configure()  # its own port and socket folder (the last setting wins)
        self.replica.start()
        return self

    def caught_up(self, timeout: float = 30.0) -> None:
        """Wait until the replica has replayed everything the primary has written so far.

        The insert position, not pg_current_wal_lsn() (what is written out): with
        synchronous_commit off, as these clusters run, a commit that has returned may not be
        written yet, and a replica at the write position may not have it."""
        target = self.primary.sql("SELECT pg_current_wal_insert_lsn()")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.replica.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn") == "t":
                return
            time.sleep(0.1)
        raise RuntimeError(f"the replica did not catch up:\n{self.replica.log()}")

    def stop(self) -> None:
        for cluster in (self.replica, self.primary):
            if cluster is not None:
                cluster.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Pgbouncer:
    """pgbouncer in transaction mode in front of the server at `host:port`, trusting its
    clients (loopback only), with at most `pool_size` server connections per database."""

    host: str
    server_port: int
    pool_size: int = 2
    port: int = field(default_factory=free_port)
    root: Path = field(default_factory=lambda: _own_dir("pgbouncer-"))
    process: subprocess.Popen | None = None

    def start(self) -> Pgbouncer:
        users = self.root / "users.txt"
        users.write_text('"postgres" ""\n')
        ini = self.root / "pgbouncer.ini"
        ini.write_text(
            "[databases]\n"
            f"* = host={self.host} port={self.server_port}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {users}\n"
            "admin_users = postgres\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {self.pool_size}\n"
            "max_client_conn = 200\n"
            "ignore_startup_parameters = extra_float_digits\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n"
        )
        user = server_user()
        if user:
            for path in (users, ini):
                shutil.chown(path, user, user)
        self.process = subprocess.Popen(
            [str(PGBOUNCER), str(ini)],
            user=user,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited at start:\n{self.log()}")
            with contextlib.suppress(RuntimeError):
                self.show("VERSION")
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"pgbouncer did not start:\n{self.log()}")

    def show(self, what: str) -> list[list[str]]:
        """Rows of the admin console's SHOW `what`, each a list of its columns."""
        out = psql(self.port, f"SHOW {what}", database="pgbouncer")
        return [line.split("|") for line in out.splitlines() if line]

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "pgbouncer.log").read_text(errors="replace")[-4000:]
        return ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        shutil.rmtree(self.root, ignore_errors=True)
