"""bench/read_instructions.py: reads through the service's WSGI application in process, and one
request's instructions from two callgrind runs (issue 30, "no slower reads")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import read_instructions

API = "/api/v1.2"


@pytest.mark.django_db(transaction=True)
def test_serve_answers_the_reads_through_the_wsgi_application(article):
    path = f"{API}/blogs/{article.blog_id}/articles/{article.pk}"

    page = f"{API}/blogs/{article.blog_id}/articles?pageSize=10"
    missing = f"{API}/blogs/{article.blog_id}/articles/0"

    assert read_instructions.serve(path, 3, freeze=False) == ["200 OK"] * 3
    assert read_instructions.serve(page, 1, freeze=False) == ["200 OK"]
    assert read_instructions.serve(missing, 1, freeze=False) == ["404 Not Found"]


def test_instructions_are_callgraph_totals(tmp_path, monkeypatch):
    """The count is the one callgrind writes in its output's `summary:` (or `totals:`) line."""

    def fake_valgrind(command, **kwargs):
        out = Path(command[2].removeprefix("--callgrind-out-file="))
        out.write_text("version: 1\nevents: Ir\nfl=x.c\nfn=main\n1 5\nsummary: 123456\n")
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(read_instructions.subprocess, "run", fake_valgrind)
    assert read_instructions.instructions(["python"], {}) == 123456


def test_a_run_without_answers_of_200_fails(tmp_path):
    """The inner run refuses to be measured when the read does not answer 200 (here: no such
    database table), instead of counting an error's instructions."""
    database = tmp_path / "empty.sqlite3"
    url = f"sqlite:///{database}"
    env = read_instructions.environment(url, "")
    inner = ["--inner", "1", "--path", f"{API}/blogs/1", "--database-url", url]
    done = subprocess.run(
        [sys.executable, read_instructions.__file__, *inner],
        env={**env, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(read_instructions.ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "answers not 200" in done.stderr
