"""Everything before the load: wrk, the service's and spyne's venvs, databases, data, a token."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work"
SPYNE_VENV = WORK / "venv-spyne"
SPYNE_REQUIREMENTS = ROOT / "bench" / "requirements-spyne.txt"
# The servers' own venv: what a production host installs (requirements.txt), not .venv, whose
# test tools DRF would import (requests, Pygments) and whose traces' packages redis-py would.
SERVICE_VENV = WORK / "venv-service"
SERVICE_REQUIREMENTS = ROOT / "requirements.txt"
PYTHON = ROOT / ".venv" / "bin" / "python"
DEFAULT_POSTGRES = os.environ.get("BENCH_POSTGRES") or "postgres://postgres@127.0.0.1:5432"


class SetupError(RuntimeError):
    pass


def ensure_wrk() -> str:
    """wrk from Debian (`apt-get install wrk`); installed here when we are root and may."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("wrk is missing: apt-get install -y wrk", flush=True)
        install = ["apt-get", "install", "-y", "-q", "wrk"]
        if subprocess.run(install, check=False).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], check=False)
            subprocess.run(install, check=False)
        found = shutil.which("wrk")
        if found:
            return found
    raise SetupError("wrk is needed: install it with `sudo apt-get install wrk` (Debian/Ubuntu)")


def ensure_venv(venv: Path, requirements: Path) -> Path:
    """`venv` from `requirements` (pinned, no includes), rebuilt when that file changes; its
    gunicorn."""
    stamp = venv / ".requirements-sha256"
    wanted = hashlib.sha256(requirements.read_bytes()).hexdigest()
    gunicorn = venv / "bin" / "gunicorn"
    if gunicorn.exists() and stamp.exists() and stamp.read_text() == wanted:
        return gunicorn
    print(f"building {venv.relative_to(ROOT)} ({requirements.relative_to(ROOT)})", flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    result = subprocess.run([*pip, "-r", str(requirements)], check=False)
    if result.returncode != 0:
        raise SetupError(f"pip could not install {requirements.relative_to(ROOT)}")
    stamp.write_text(wanted)
    return gunicorn


def ensure_spyne_venv() -> Path:
    return ensure_venv(SPYNE_VENV, SPYNE_REQUIREMENTS)


def ensure_service_venv() -> Path:
    """The gunicorn every server of the bench runs but spyne's (bench/servers.py)."""
    return ensure_venv(SERVICE_VENV, SERVICE_REQUIREMENTS)


def postgres_reachable(url: str = DEFAULT_POSTGRES + "/postgres") -> bool:
    import psycopg

    try:
        with psycopg.connect(libpq(url), connect_timeout=2):
            return True
    except psycopg.Error:
        return False


def libpq(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


def ensure_postgres_database(url: str, *, fresh: bool) -> None:
    """CREATE DATABASE when missing (DROP first with `fresh`), through the maintenance db."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(libpq(admin), autocommit=True, connect_timeout=3) as connection:
        if fresh:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def manage(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(PYTHON), "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if check and result.returncode != 0:
        raise SetupError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-2000:]}")
    return result


def prepare_database(env: dict[str, str], *, articles: int) -> str:
    manage(env, "migrate", "--noinput", "-v", "0")
    return manage(env, "seed_bench", "--articles", str(articles)).stdout.strip()


def bench_article_ids(env: dict[str, str], *, limit: int) -> list[int]:
    code = (
        "import json; from articles.models import Article; "
        "print(json.dumps(list(Article.objects.live().in_blog(1).filter(locked=False)"
        f".order_by('id').values_list('id', flat=True)[:{limit}])))"
    )
    return json.loads(manage(env, "shell", "-c", code).stdout.strip().splitlines()[-1])


def issue_token(env: dict[str, str]) -> tuple[str, str]:
    """A token for alice: `issue_token alice` (its last line), as a user would get one."""
    result = manage(env, "issue_token", "alice", "--name", "benchmark", check=False)
    if result.returncode == 0 and result.stdout.strip():
        return result.stdout.strip().splitlines()[-1].strip(), "manage.py issue_token alice"
    # Until the command exists, the same service it calls.
    code = (
        "from django.contrib.auth.models import User; from blogs.services import token_issue; "
        "print(token_issue(user=User.objects.get(username='alice'), name='benchmark')[1])"
    )
    token = manage(env, "shell", "-c", code).stdout.strip().splitlines()[-1]
    return token, f"blogs.services.token_issue (manage.py issue_token failed: {_why(result)})"


def load_starwars(env: dict[str, str]) -> str | None:
    """Load the GraphQL data; None when it worked, else why not (GraphQL rows then fail)."""
    result = manage(env, "load_starwars", check=False)
    if result.returncode == 0:
        return None
    return _why(result)


def _why(result: subprocess.CompletedProcess) -> str:
    return " ".join(result.stderr.strip().splitlines()[-2:])[:200] or "failed, no output"
