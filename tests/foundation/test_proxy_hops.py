"""TRUSTED_PROXY_HOPS: how many proxies in front each add an X-Forwarded-For entry (nginx in front
of Varnish: two), so that the client's address is read where the nearest trusted proxy put it
(production settings in a fresh interpreter, as a deployment starts them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory

from core.client_address import client_address

ROOT = Path(__file__).resolve().parents[2]
SHOW = "from django.conf import settings as s; print(s.REST_FRAMEWORK['NUM_PROXIES'])"


def settings_with(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {SHOW}"],
        cwd=ROOT,
        env={
            "PATH": os.environ["PATH"],
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": "settings-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "proxies"),
    [
        ({}, "0"),
        ({"TRUSTED_PROXY_HOPS": "2"}, "0"),  # no proxy trusted: the header is never read
        ({"BEHIND_TRUSTED_PROXY": "true"}, "1"),
        ({"BEHIND_TRUSTED_PROXY": "true", "TRUSTED_PROXY_HOPS": "2"}, "2"),
    ],
)
def test_the_hops_count_only_behind_a_trusted_proxy(env, proxies):
    result = settings_with(**env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == proxies


def test_a_hop_count_below_one_stops_the_start():
    result = settings_with(BEHIND_TRUSTED_PROXY="true", TRUSTED_PROXY_HOPS="0")
    assert result.returncode != 0
    assert "TRUSTED_PROXY_HOPS must be at least 1" in result.stderr


@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        # nginx wrote the client's address, Varnish appended nginx's.
        ("198.51.100.7, 127.0.0.1", "198.51.100.7"),
        # A client's own entry comes first and is not believed.
        ("203.0.113.1, 198.51.100.7, 127.0.0.1", "198.51.100.7"),
    ],
)
def test_with_two_hops_the_client_is_the_second_entry_from_the_end(settings, forwarded, client):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 2}
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == client
