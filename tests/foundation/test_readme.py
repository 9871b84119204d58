"""The README's walk through the API, run as written (bash and curl) against a live server on fresh
demo data: every status its comments promise is the status the server answers, in order."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings

from blogs import services as blog_services

README = Path(__file__).resolve().parents[2] / "README.md"
DEV_ORIGIN = "http://127.0.0.1:8000"

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")


def readme_block(after: str) -> str:
    """The first fenced block of the README after the line that starts with `after`."""
    text = README.read_text()
    start = text.index("```\n", text.index(after)) + 4
    return text[start : text.index("```", start)]


def commands(script: str) -> list[str]:
    """The script's logical lines (continuation lines joined)."""
    return script.replace("\\\n", " ").splitlines()


def promised_statuses(script: str) -> list[int]:
    """The status each `curl -si` line's comment names, in order."""
    found = []
    for line in commands(script):
        if "curl -si" in line:
            comment = line.split("  # ", 1)[1]
            found.append(int(re.match(r"\d{3}", comment).group()))
    return found


def run(script: str, origin: str, token: str = "") -> str:
    completed = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script.replace(DEV_ORIGIN, origin)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TOKEN": token},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.fixture
def demo(transactional_db) -> str:
    """Fresh demo data, as `make run` loads it, and a token for alice."""
    call_command("seed_demo", stdout=io.StringIO())
    call_command("load_starwars", stdout=io.StringIO())
    _, token = blog_services.token_issue(user=User.objects.get(username="alice"), name="walk")
    return token


@override_settings(ALLOWED_HOSTS=["localhost", "127.0.0.1"], ALLOWED_PORTS=["*"])
def test_the_api_walk_answers_what_its_comments_say(live_server, demo):
    script = readme_block("## A walk through the API")
    promised = promised_statuses(script)
    assert promised == [304, 200, 412, 201, 204, 410]

    output = run(script, live_server.url, token=demo)

    answered = [int(status) for status in re.findall(r"HTTP/1\.[01] (\d{3}) ", output)]
    assert answered == promised, output[-2000:]
    assert f"{live_server.url}/api/v1.2/blogs/1/articles/" in output  # echo "$A"
    assert '"text":"Nice"' in output  # the comment page shows the new comment


@override_settings(ALLOWED_HOSTS=["localhost", "127.0.0.1"], ALLOWED_PORTS=["*"])
def test_the_graphql_and_soap_examples_answer(live_server, demo):
    output = run(readme_block("GraphQL and SOAP:"), live_server.url)

    assert '"name":"Luke Skywalker"' in output and '"homeworld":{"name":"Tatooine"}' in output
    assert re.search(r"<(\w+:)?Result>5</(\w+:)?Result>", output), output
