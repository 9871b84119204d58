"""Real clients of the JavaScript ecosystem (ketting, traverson-hal, node-soap, graphql-http),
pinned in tests/js/package.json and package-lock.json, driven from the Python tests.

The test suite installs nothing: `.ci/install-node-clients` (`npm ci` in tests/js) does; without
Node.js or those packages the tests that need them skip, naming that command.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

CLIENTS = Path(__file__).resolve().parents[1] / "js"


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None or not (CLIENTS / "node_modules").is_dir():
        pytest.skip(
            "Node.js or the pinned JavaScript clients are missing: run .ci/install-node-clients"
        )
    return node


def run_module(source: str, *args: str, timeout: float = 60) -> Any:
    """Run `source`, an ES module, in tests/js (so that its bare imports are the pinned
    packages), with `args` as process.argv[1:]; it must print one JSON document on its last line
    of standard output, which is returned. A non-zero exit fails the test with its stderr."""
    node = node_or_skip()
    completed = subprocess.run(
        [node, "--input-type=module", "--eval", source, "--", *args],
        cwd=CLIENTS,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if completed.returncode != 0:
        pytest.fail(f"node exited {completed.returncode}: {completed.stderr[-3000:]}")
    lines = completed.stdout.strip().splitlines()
    assert lines, f"node printed nothing; stderr: {completed.stderr[-3000:]}"
    return json.loads(lines[-1])
