"""gunicorn settings for production: `gunicorn -c config/gunicorn.conf.py config.wsgi`.

Every value can be changed by the environment (the same variables in every deployment, read
through config/env.py so that a typo stops the start instead of running with a default).
The benchmark (bench/run.py) serves the service and its baselines with this very file.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from pathlib import Path

from gunicorn.util import parse_address

# gunicorn executes this file before it puts --chdir on sys.path; config.env lives beside it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from config.env import env_bool, env_int, env_str
from core import tracing

# Traces (OTEL_*): each worker makes its own exporting thread after the fork (post_fork), since a
# thread does not survive one; config.wsgi only instruments (core/tracing).
tracing.start_in_workers()

bind = [env_str("BIND") or f"127.0.0.1:{env_int('PORT', 8000, minimum=1)}"]


def _reachable_from_this_host_only(address: str) -> bool:
    """Whether a bind address (gunicorn's syntax) listens on loopback or a Unix socket."""
    parsed = parse_address(address)
    if isinstance(parsed, str):  # unix:PATH
        return True
    if isinstance(parsed, int):  # fd://N: a socket made elsewhere, on an address unknown here
        return False
    host = parsed[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name, or "" (every interface)
        return False


# gunicorn alone starves on slow clients: a connection that sends its headers one line every few
# seconds holds a worker thread until it is done, and a handful of them leave none for anyone
# else. So it serves loopback only; anything else must come through the buffering proxy
# (deploy/nginx/blog-service.conf), which reads each request whole first, and the service must
# know it is there (BEHIND_TRUSTED_PROXY) to take the client's address from it
# (docs/decisions/gunicorn-alone-on-loopback.md).
if not env_bool("BEHIND_TRUSTED_PROXY", False):
    for address in bind:
        if not _reachable_from_this_host_only(address):
            raise ValueError(
                f"BIND={address} is not a loopback address: gunicorn alone serves loopback only "
                "(a few slow clients hold every worker thread). Put nginx in front "
                "(deploy/nginx/blog-service.conf) and set BEHIND_TRUSTED_PROXY=true, or bind "
                "127.0.0.1 (docs/production.md)."
            )

# gthread: keep-alive connections from a load balancer or client are served, and a slow client
# holds one thread rather than a whole process. Python code runs under the GIL, so the threads
# mostly overlap database and network waits; processes give the CPU parallelism.
# GUNICORN_WORKER_CLASS=sync is for measuring the alternative (docs/benchmarks.md).
worker_class = env_str("GUNICORN_WORKER_CLASS") or "gthread"
if worker_class not in ("gthread", "sync"):
    raise ValueError(f"GUNICORN_WORKER_CLASS must be gthread or sync, not {worker_class!r}")
workers = env_int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1), minimum=1)
# gunicorn silently runs gthread for "sync" with more than one thread: sync means one.
threads = 1 if worker_class == "sync" else env_int("GUNICORN_THREADS", 2, minimum=1)

# Load Django once in the master: start-up errors stop the master before any worker forks, and
# the workers share the imported code (copy-on-write), which keeps each one's memory small.
preload_app = env_bool("GUNICORN_PRELOAD", True)

# The SOAP GET binding must answer a request URI over 3000 characters itself (414 with a Sender
# fault), so gunicorn must let such lines through; 8190 is the most gunicorn accepts.
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

# A request that runs longer than `timeout` is stuck (GraphQL has a 2 s budget, the database a
# connect timeout): its worker is killed and replaced. On a restart or SIGTERM, workers get
# `graceful_timeout` to finish the requests they have.
timeout = env_int("GUNICORN_TIMEOUT", 30, minimum=1)
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 30, minimum=1)
# Longer than a client's pause between requests, shorter than a load balancer's idle timeout
# would need tuning per deployment; 5 s serves browsers and API clients that reuse connections.
keepalive = env_int("GUNICORN_KEEPALIVE", 5, minimum=0)

# Memory guard: a worker is replaced after this many requests (with jitter, so the workers do
# not restart together). 0 turns it off; the benchmark does, so that memory growth shows.
max_requests = env_int("GUNICORN_MAX_REQUESTS", 20000, minimum=0)
max_requests_jitter = env_int("GUNICORN_MAX_REQUESTS_JITTER", max_requests // 10, minimum=0)

# Django decides about X-Forwarded-* (BEHIND_TRUSTED_PROXY); gunicorn must not switch the URL
# scheme on its own from a header a client can send.
secure_scheme_headers: dict[str, str] = {}

# The service logs each request on one line itself; gunicorn's access log is off unless asked
# for (GUNICORN_ACCESS_LOG=- writes it to standard output).
accesslog = env_str("GUNICORN_ACCESS_LOG") or None
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = "-"
loglevel = env_str("GUNICORN_LOG_LEVEL") or "info"

# Heartbeat files on a memory file system: a slow disk cannot make the master kill workers.
if Path("/dev/shm").is_dir():  # noqa: S108 (gunicorn's documented choice, not a temp file)
    worker_tmp_dir = "/dev/shm"  # noqa: S108

# No control socket: nothing here uses gunicornc, and its default path is one per user, which
# several instances on one host (the benchmark runs six) would fight over.
control_socket_disable = True


def when_ready(server) -> None:
    """Runs in the master after the app is preloaded and before any worker forks."""
    # A database connection opened while importing the app would be inherited by every worker,
    # all talking over one socket; close it so that each worker opens its own.
    db = sys.modules.get("django.db")
    if db is not None:
        db.connections.close_all()


# Metrics across workers (docs/production.md, "Metrics"): with PROMETHEUS_MULTIPROC_DIR set, each
# worker writes its values to files there and /metrics adds them up. A new server starts from an
# empty directory; a worker that exits is marked dead (its counters stay in the sums).
def on_starting(server) -> None:
    from core.metrics.multiprocess import reset_directory

    reset_directory()


def child_exit(server, worker) -> None:
    from core.metrics.multiprocess import worker_exited

    worker_exited(worker.pid)


def post_fork(server, worker) -> None:
    tracing.start()


def worker_exit(server, worker) -> None:
    # The spans still queued go out before the worker ends (a restart, max_requests, shutdown).
    tracing.shutdown()
