"""`manage.py check --deploy` passes with the production environment of docs/reliability.md."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent

PRODUCTION_ENVIRONMENT = {
    "DEBUG": "false",
    "ALLOWED_HOSTS": "blog.example.org",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
}


def deploy_check(environment: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env={
            "PATH": os.environ.get("PATH", ""),
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "SECRET_KEY": secrets.token_urlsafe(50),
            **environment,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_deploy_check_passes_with_the_production_environment():
    result = deploy_check(PRODUCTION_ENVIRONMENT)
    assert result.returncode == 0, result.stderr + result.stdout


def test_the_deploy_check_fails_without_transport_security():
    result = deploy_check({"DEBUG": "false", "ALLOWED_HOSTS": "blog.example.org"})
    assert result.returncode != 0
    output = result.stderr + result.stdout
    # HSTS, SSL redirect, CSRF cookie; and the session cookie, which Django reports as W010,
    # W011 or W012 depending on whether it finds the sessions app, its exact middleware or both.
    for check in ("security.W004", "security.W008", "security.W016"):
        assert check in output
    assert any(f"security.W01{n}" in output for n in (0, 1, 2)), output
