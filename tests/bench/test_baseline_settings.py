"""The floor's and the peer's own settings start Django (the harness runs them under gunicorn
with nothing else): every app their models need is installed. The other tests import the
baselines under the test settings, which install everything, and cannot see that."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bench.servers import ROOT


@pytest.mark.parametrize("baseline", ["floor", "peer"])
def test_the_baseline_starts_django_with_its_own_settings(baseline):
    code = f"import bench.{baseline}.wsgi, bench.{baseline}.views; print('started')"
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": f"bench.{baseline}.settings",
        "SECRET_KEY": "a-secret-for-this-test-only-0123456789-0123456789",
    }

    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "started"
