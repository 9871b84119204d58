"""Settings helpers fail loudly on values they cannot read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.env import env_bool, env_int, env_list, env_origin, env_rate, load_env_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("TRUE", True), ("off", False)])
def test_env_bool_reads_the_usual_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("FLAG", raw)
    assert env_bool("FLAG") is expected


def test_env_bool_refuses_anything_else(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG"):
        env_bool("FLAG")


def test_env_int_refuses_words_and_values_below_the_minimum(monkeypatch):
    monkeypatch.setenv("SIZE", "ten")
    with pytest.raises(ImproperlyConfigured, match="SIZE must be an integer"):
        env_int("SIZE", 1)
    monkeypatch.setenv("SIZE", "0")
    with pytest.raises(ImproperlyConfigured, match="at least 1"):
        env_int("SIZE", 5, minimum=1)
    monkeypatch.delenv("SIZE")
    assert env_int("SIZE", 5) == 5


def test_env_list_and_rate(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example , b.example ,")
    assert env_list("HOSTS", []) == ["a.example", "b.example"]
    monkeypatch.setenv("RATE", "10/sec")
    assert env_rate("RATE", "1/min") == "10/sec"
    monkeypatch.setenv("RATE", "lots")
    with pytest.raises(ImproperlyConfigured, match="RATE"):
        env_rate("RATE", "1/min")


@pytest.mark.parametrize(
    "raw", ["blog.example.org", "ftp://blog.example.org", "https://", "https://a.example/path"]
)
def test_env_origin_refuses_anything_but_an_http_origin(monkeypatch, raw):
    monkeypatch.setenv("ORIGIN", raw)
    with pytest.raises(ImproperlyConfigured, match="ORIGIN must be an origin"):
        env_origin("ORIGIN", "http://127.0.0.1:8000")


def test_env_origin_reads_an_origin_and_defaults(monkeypatch):
    monkeypatch.setenv("ORIGIN", "https://Blog.example.org:8443/")
    assert env_origin("ORIGIN", "http://x") == "https://Blog.example.org:8443"
    monkeypatch.delenv("ORIGIN")
    assert env_origin("ORIGIN", "http://127.0.0.1:8000") == "http://127.0.0.1:8000"


def unset(monkeypatch, *names: str) -> None:
    """Remove `names` from the environment for this test, restoring them (or their absence)."""
    for name in names:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def test_env_file_lines_become_defaults_the_environment_overrides(monkeypatch, tmp_path):
    unset(monkeypatch, "DEV_FLAG", "DEV_KEY", "DEV_NAME")
    monkeypatch.setenv("DEV_NAME", "from the environment")
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# written by make run\n\nDEV_FLAG=true\n DEV_KEY = a=b#c \nDEV_NAME=from the file\n"
    )

    load_env_file(env_file)

    assert os.environ["DEV_FLAG"] == "true"
    assert os.environ["DEV_KEY"] == "a=b#c"
    assert os.environ["DEV_NAME"] == "from the environment"


def test_a_missing_env_file_changes_nothing(tmp_path):
    before = dict(os.environ)
    load_env_file(tmp_path / ".env")
    assert dict(os.environ) == before


def test_an_env_file_line_that_is_not_name_equals_value_stops_the_process(monkeypatch, tmp_path):
    unset(monkeypatch, "DEV_FLAG")
    env_file = tmp_path / ".env"
    env_file.write_text("DEV_FLAG=true\nexport SECRET_KEY\n")

    with pytest.raises(ImproperlyConfigured, match=r"line 2: expected NAME=value"):
        load_env_file(env_file)


def python_without_a_secret_key(code: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "code",
    ["import django; django.setup()", "import config.wsgi"],
    ids=["settings", "gunicorn's config.wsgi"],
)
def test_production_settings_refuse_to_start_without_a_secret_key(code):
    # gunicorn imports config.wsgi, which reads no .env: production's key comes from the
    # environment only, whatever file `make run` left in the checkout.
    result = python_without_a_secret_key(code)
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


@pytest.mark.parametrize("target", ["serve", "serve-edge"])
def test_make_serve_refuses_to_start_without_a_secret_key(target):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        # -o: take the virtualenv as installed; this test must not install anything.
        ["make", "-s", "-C", str(ROOT), "-o", ".venv/.installed", target],
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert f"make {target}: set SECRET_KEY first" in result.stderr


def test_make_serve_edge_without_varnish_says_how_to_install_it():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-o", ".venv/.installed", "serve-edge"],
        env={
            "PATH": os.environ["PATH"],
            "SECRET_KEY": "x" * 50,
            "VARNISHD": "/nonexistent/varnishd",
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "make serve-edge: varnishd is missing: apt-get install varnish varnish-modules" in (
        result.stderr
    )
