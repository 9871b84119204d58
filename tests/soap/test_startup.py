"""The request schema is compiled when the process starts, so a bad namespace stops it there."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

SETUP_AND_CHECK = (
    "import django; django.setup(); "
    "from soapcalc.wsdl import _compiled; "
    "print(sorted(_compiled.by_namespace))"
)


def start(namespace: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "SOAP_NAMESPACE": namespace}
    environment["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    return subprocess.run(
        [sys.executable, "-c", SETUP_AND_CHECK],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_schema_for_the_configured_namespace_is_compiled_at_start_up():
    process = start("urn:example:started")

    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "['urn:example:started']"


def test_a_namespace_that_is_not_a_uri_stops_the_process_at_start_up():
    process = start("not a uri")

    assert process.returncode != 0
    assert "ImproperlyConfigured" in process.stderr
    assert "SOAP_NAMESPACE" in process.stderr
