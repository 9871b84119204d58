"""Settings helpers fail loudly on values they cannot read."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, env_rate


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


def test_production_settings_refuse_to_start_without_a_secret_key():
    import subprocess
    import sys
    from pathlib import Path

    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr
