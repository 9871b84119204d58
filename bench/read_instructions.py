"""User-space instructions per request of one read, in process, under valgrind's callgrind: the
figure the machine's load does not move (issue 30, "no slower reads").

    .venv/bin/python -m bench.read_instructions --database-url URL --path /api/v1.2/blogs/1
        [--root CHECKOUT] [--python PYTHON] [--warmup 30] [--requests 1000] [--no-freeze]

The service of `--root` (default: this checkout) is loaded by `config.wsgi` with the production
settings the harness gives its servers, then, as gunicorn's master does before it forks, its
objects frozen (`gc.freeze()`, config/gunicorn.conf.py; `--no-freeze` for code without it). Each
request goes through the WSGI application with the bench's `Accept`, between two
`close_old_connections()`, as a server runs it. Two runs under callgrind, the warm-up alone and the
warm-up with N requests more: their difference over N is one request's instructions, start-up and
warm-up left out. `--python` is the interpreter whose packages the service loads (default:
bench/.work/venv-service of `--root`, what production installs).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from wsgiref.util import setup_testing_defaults

ROOT = Path(__file__).resolve().parent.parent
ACCEPT = "application/hal+json"
TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


def environment(database_url: str, redis_url: str) -> dict[str, str]:
    """The production settings the harness gives its servers (bench/run.py), rate limits on."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": "read-instructions-" + "k" * 40,  # in process only, never served
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "ALLOWED_PORTS": "*",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "RATE_LIMIT_ENABLED": "true",
        "RATE_LIMIT_READ": "1000000/s",
        "RATE_LIMIT_WRITE": "1000000/s",
    }


def serve(path: str, count: int, *, freeze: bool) -> list[str]:
    """Load the service, freeze what it built (unless told not to), answer `count` GETs of
    `path`; the statuses, which the caller checks."""
    from django.db import close_old_connections, connections

    from config.wsgi import application

    connections.close_all()  # as gunicorn's when_ready: no connection crosses the fork
    if freeze:
        gc.freeze()
    path_info, _, query = path.partition("?")
    statuses = []
    for _ in range(count):
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path_info,
            "QUERY_STRING": query,
            "SERVER_PORT": "8000",
            "HTTP_HOST": "127.0.0.1:8000",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_ACCEPT": ACCEPT,
        }
        setup_testing_defaults(environ)  # the rest of a WSGI environ, an empty body among it
        close_old_connections()
        answer = application(environ, lambda status, *_: statuses.append(status))
        b"".join(answer)
        answer.close()
        close_old_connections()
    return statuses


def instructions(command: list[str], env: dict[str, str]) -> int:
    """The user-space instructions callgrind counted in the whole run of `command`."""
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        found = TOTALS.search(out.read_text())
    if found is None:
        raise RuntimeError(f"no totals in callgrind's output of {command}")
    return int(found.group(1))


def per_request(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    python = args.python or str(root / "bench" / ".work" / "venv-service" / "bin" / "python")
    # One hash seed for both runs: the same dictionaries in the same order, so that the warm-up
    # run is the measured run's beginning, instruction for instruction.
    env = {**os.environ, **environment(args.database_url, args.redis_url), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)

    def run(count: int) -> int:
        # This file as a script (--root may be a checkout without it), the service --root's.
        inner = [python, __file__, "--inner", str(count), "--path", args.path]
        inner += ["--database-url", args.database_url]
        if args.no_freeze:
            inner.append("--no-freeze")
        return instructions(inner, {**env, "PYTHONPATH": str(root)})

    warm = run(args.warmup)
    measured = run(args.warmup + args.requests)
    return (measured - warm) // args.requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/4")
    parser.add_argument("--path", required=True, help="the GET's path and query")
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose service is measured")
    parser.add_argument("--python", help="its interpreter (default: its bench/.work/venv-service)")
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--no-freeze", action="store_true", help="for code without gc.freeze")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner is not None:
        statuses = serve(args.path, args.inner, freeze=not args.no_freeze)
        wrong = [status for status in statuses if not status.startswith("200")]
        if wrong:
            print(f"{args.path}: {len(wrong)} answers not 200 ({wrong[0]})", file=sys.stderr)
            return 1
        return 0
    print(f"{args.path}: {per_request(args):,} instructions per request ({args.root})")
    return 0


if __name__ == "__main__":
    # Run as a script (per_request's inner runs), its folder comes first on the path, where
    # bench/webhooks.py would stand for the service's webhooks app.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    sys.exit(main())
