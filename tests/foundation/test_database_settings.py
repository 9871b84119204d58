"""The database topology read from the environment: a replica, a pooler (production settings,
in a fresh interpreter each, as a deployment starts them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRIMARY = "postgres://app@db.internal:5432/blog"
REPLICA = "postgres://app@replica.internal:5432/blog"
SHOW = (
    "import json; from django.conf import settings as s; print(json.dumps({"
    "'databases': s.DATABASES, 'routers': s.DATABASE_ROUTERS, 'pin': s.REPLICA_PIN_SECONDS,"
    "'lag': s.REPLICA_MAX_LAG_SECONDS, 'check': s.REPLICA_CHECK_SECONDS}, default=str))"
)


def settings_with(module: str = "config.settings.base", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {SHOW}"],
        cwd=ROOT,
        env={
            "PATH": os.environ["PATH"],
            "DJANGO_SETTINGS_MODULE": module,
            "SECRET_KEY": "settings-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def loaded(**env: str) -> dict:
    result = settings_with(**env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_without_a_replica_url_there_is_one_database_and_the_defaults():
    found = loaded(DATABASE_URL=PRIMARY)
    assert list(found["databases"]) == ["default"]
    assert found["routers"] == ["core.db_router.ReplicaRouter"]
    assert (found["pin"], found["lag"], found["check"]) == (10, 5, 2)
    assert found["databases"]["default"]["DISABLE_SERVER_SIDE_CURSORS"] is False


def test_a_replica_url_adds_the_replica_alias_with_the_primarys_options():
    found = loaded(DATABASE_URL=PRIMARY, DATABASE_REPLICA_URL=REPLICA, REPLICA_PIN_SECONDS="9")
    replica = found["databases"]["replica"]
    assert replica["HOST"] == "replica.internal" and replica["NAME"] == "blog"
    assert replica["OPTIONS"]["connect_timeout"] == 3
    assert replica["CONN_HEALTH_CHECKS"] is True
    assert found["pin"] == 9


def test_the_test_settings_make_the_replica_a_mirror_of_the_test_database():
    result = settings_with(
        "config.settings.test", DATABASE_URL=PRIMARY, DATABASE_REPLICA_URL=REPLICA
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["databases"]["replica"]["TEST"]["MIRROR"] == "default"


def test_pgbouncer_turns_off_server_side_cursors_and_prepared_statements_everywhere():
    found = loaded(DATABASE_URL=PRIMARY, DATABASE_REPLICA_URL=REPLICA, DATABASE_POOLER="pgbouncer")
    for alias in ("default", "replica"):
        database = found["databases"][alias]
        assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
        assert database["OPTIONS"]["prepare_threshold"] is None


def test_an_unknown_pooler_or_a_bad_lag_stops_the_process():
    result = settings_with(DATABASE_URL=PRIMARY, DATABASE_POOLER="pgpool")
    assert result.returncode != 0 and "DATABASE_POOLER must be one of" in result.stderr
    result = settings_with(DATABASE_URL=PRIMARY, REPLICA_MAX_LAG_SECONDS="soon")
    assert result.returncode != 0 and "REPLICA_MAX_LAG_SECONDS must be an integer" in result.stderr
