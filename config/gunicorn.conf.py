"""gunicorn settings for production: `gunicorn -c config/gunicorn.conf.py config.wsgi`; each
value and why: docs/production.md. The benchmark (bench/run.py) serves with this very file.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import signal
import sys
from pathlib import Path

from gunicorn.util import parse_address

# gunicorn executes this file before it puts --chdir on sys.path; core.env lives beside it.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import tracing
from core.env import env_bool, env_int, env_str

tracing.start_in_workers()  # post_fork: a thread does not survive a fork

bind = [env_str("BIND") or f"127.0.0.1:{env_int('PORT', 8000, minimum=1)}"]


def _reachable_from_this_host_only(address: str) -> bool:
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


# gunicorn alone starves on slow clients (docs/decisions/gunicorn-alone-on-loopback.md).
if not env_bool("BEHIND_TRUSTED_PROXY", False):
    for address in bind:
        if not _reachable_from_this_host_only(address):
            raise ValueError(
                f"BIND={address} is not a loopback address: gunicorn alone serves loopback only "
                "(a few slow clients hold every worker thread). Put nginx in front "
                "(deploy/nginx/blog-service.conf) and set BEHIND_TRUSTED_PROXY=true, or bind "
                "127.0.0.1 (docs/production.md)."
            )

# GUNICORN_WORKER_CLASS=sync is for measuring the alternative (docs/benchmarks.md).
worker_class = env_str("GUNICORN_WORKER_CLASS") or "gthread"
if worker_class not in ("gthread", "sync"):
    raise ValueError(f"GUNICORN_WORKER_CLASS must be gthread or sync, not {worker_class!r}")
workers = env_int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1), minimum=1)
# gunicorn silently runs gthread for "sync" with more than one thread: sync means one.
threads = 1 if worker_class == "sync" else env_int("GUNICORN_THREADS", 2, minimum=1)
preload_app = env_bool("GUNICORN_PRELOAD", True)
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
timeout = env_int("GUNICORN_TIMEOUT", 30, minimum=1)
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 30, minimum=1)
keepalive = env_int("GUNICORN_KEEPALIVE", 5, minimum=0)
max_requests = env_int("GUNICORN_MAX_REQUESTS", 20000, minimum=0)
max_requests_jitter = env_int("GUNICORN_MAX_REQUESTS_JITTER", max_requests // 10, minimum=0)
secure_scheme_headers: dict[str, str] = {}
accesslog = env_str("GUNICORN_ACCESS_LOG") or None
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = "-"
loglevel = env_str("GUNICORN_LOG_LEVEL") or "info"
if Path("/dev/shm").is_dir():  # noqa: S108 (gunicorn's documented choice, not a temp file)
    worker_tmp_dir = "/dev/shm"  # noqa: S108
control_socket_disable = True


def when_ready(server) -> None:
    # A connection opened while preloading would be shared by every forked worker.
    db = sys.modules.get("django.db")
    if db is not None:
        db.connections.close_all()


def on_starting(server) -> None:
    from core.metrics.multiprocess import reset_directory

    reset_directory()


def child_exit(server, worker) -> None:
    from core.metrics.multiprocess import worker_exited

    worker_exited(worker.pid)


def pre_fork(server, worker) -> None:
    # The preloaded application lives as long as the worker: frozen (gc.freeze's documented use,
    # just before a fork), the worker's collections never walk it, cost less, and free the cycles
    # DRF leaves per request sooner: 11 MiB less per worker (docs/benchmarks.md).
    gc.freeze()


def post_fork(server, worker) -> None:
    tracing.start()


def post_worker_init(worker) -> None:
    # Ctrl-C (SIGINT to the process group, as from `make serve`) reaches every worker and the
    # master, which then sends each worker SIGQUIT; taking both, a gthread worker hung on its
    # thread pool's lock (docs/decisions/clean-stops.md): a worker leaves SIGINT to the master.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_exit(server, worker) -> None:
    tracing.shutdown()
