"""Operator commands, run as an operator runs them: `python manage.py ...` in a subprocess for
the exit codes and stderr lines, call_command for what they write to the database."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from articles.models import Article, Comment
from blogs.models import AccessToken, Blog

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str) -> subprocess.CompletedProcess:
    """Run a command that fails before touching the database (argument errors)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_seed_demo_builds_the_contract_cast(db):
    run("seed_demo")
    blog1, blog2, blog3 = (Blog.objects.get(pk=n) for n in (1, 2, 3))
    assert {u.username for u in blog1.authors.all()} == {"alice"}
    assert {u.username for u in blog2.authors.all()} == {"bob"}
    assert blog3.archived and blog3.authors.filter(username="alice").exists()
    assert not blog1.authors.filter(username="bob").exists()
    assert blog1.article_count == Article.objects.live().in_blog(1).count() >= 25
    locked = Article.objects.get(blog=blog1, title="Locked by the editors")
    assert locked.locked
    from django.contrib.auth.models import User

    editor = User.objects.get(username="editor")
    assert editor.is_staff
    for permission in ("add_article", "change_article", "delete_article"):
        assert editor.has_perm(f"articles.{permission}")


def test_seed_demo_is_idempotent(db):
    run("seed_demo")
    counts = (Blog.objects.count(), Article.objects.count(), Comment.objects.count())
    revision = Blog.objects.get(pk=1).revision
    run("seed_demo")
    assert (Blog.objects.count(), Article.objects.count(), Comment.objects.count()) == counts
    assert Blog.objects.get(pk=1).revision == revision
    # New blogs after the seeded ids do not collide with them (PostgreSQL's sequence moved on).
    assert Blog.objects.create(title="Next").pk > 3


def test_a_restart_keeps_a_deleted_demo_article_deleted(db, client):
    run("seed_demo")
    alice = Blog.objects.get(pk=1).authors.get()
    token = run("issue_token", "alice", "--name", "demo").strip().splitlines()[-1]
    seventh = Article.objects.get(blog_id=1, title="Demo article 7")
    response = client.delete(
        f"/api/v1.2/blogs/1/articles/{seventh.pk}", headers={"X-Access-Token": token}
    )
    assert response.status_code == 204
    articles = Article.objects.live().in_blog(1).count()

    output = run("seed_demo")

    assert "left as it is" in output
    assert not Article.objects.live().filter(title="Demo article 7").exists()
    assert Article.objects.live().in_blog(1).count() == articles
    assert client.get(f"/api/v1.2/blogs/1/articles/{seventh.pk}").status_code == 410
    assert Blog.objects.get(pk=1).authors.get() == alice


def test_seed_demo_adds_nothing_to_a_database_that_has_blogs(blog):
    output = run("seed_demo")

    assert "left as it is" in output
    assert list(Blog.objects.all()) == [blog]
    assert not Article.objects.exists()


def test_the_demo_token_of_each_start_replaces_the_previous_one(alice):
    laptop = run("issue_token", "alice", "--name", "laptop").strip().splitlines()[-1]
    first = run("issue_token", "alice", "--name", "demo", "--replace").strip().splitlines()[-1]
    output = run("issue_token", "alice", "--name", "demo", "--replace")
    second = output.strip().splitlines()[-1]

    assert f"Revoked the previous token {first[:8]}" in output
    assert AccessToken.objects.matching(first) is None
    assert AccessToken.objects.matching(second).name == "demo"
    assert AccessToken.objects.filter(name="demo", revoked=False).count() == 1
    assert AccessToken.objects.matching(laptop) is not None


def test_issue_token_prints_a_working_token_on_its_last_line(alice):
    output = run("issue_token", "alice", "--name", "laptop", "--expires-in", "30")
    plain = output.strip().splitlines()[-1]
    token = AccessToken.objects.matching(plain)
    assert token is not None and token.user == alice and token.name == "laptop"
    assert token.expires_at is not None


def test_revoke_token_by_name_and_by_prefix(alice):
    first = run("issue_token", "alice", "--name", "laptop").strip().splitlines()[-1]
    second = run("issue_token", "alice", "--name", "ci").strip().splitlines()[-1]
    run("revoke_token", "laptop")
    run("revoke_token", second[:8])
    assert AccessToken.objects.matching(first) is None
    assert AccessToken.objects.matching(second) is None


def test_revoke_token_refuses_an_ambiguous_name(alice):
    from django.core.management.base import CommandError

    run("issue_token", "alice", "--name", "same")
    run("issue_token", "alice", "--name", "same")
    with pytest.raises(CommandError, match="2 active tokens"):
        run("revoke_token", "same")
    assert AccessToken.objects.filter(revoked=False).count() == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["issue_token"], "required: username"),
        (["issue_token", "alice", "--expires-in", "soon"], "not a whole number of days"),
        (["issue_token", "alice", "--expires-in", "0"], "between 1 and 3650"),
        (["issue_token", "alice", "--unknown"], "unrecognized arguments"),
        (["revoke_token"], "required: prefix_or_name"),
    ],
)
def test_bad_arguments_give_one_line_and_a_failing_exit_code(args, message):
    result = manage(*args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("CommandError:") and message in lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["issue_token", "nobody"], "no active user named 'nobody'"),
        (["issue_token", "alice", "--name", " "], "--name must be 1 to 100 characters"),
        (["revoke_token", "no-such-token"], "no active token"),
    ],
)
def test_bad_values_are_refused_with_a_clear_error(alice, args, message):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not AccessToken.objects.filter(revoked=False).exists()


@pytest.fixture
def make_run_checkout(tmp_path):
    """A checkout as `make run` leaves it: the `.env` its Makefile target writes, next to
    manage.py (a copy, run with this checkout's code), and a database of its own. The
    environment names no SECRET_KEY, DEBUG or settings module, as in a newcomer's shell."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(tmp_path), ".env"],
        env={"PATH": os.environ["PATH"], "PYTHON": sys.executable},
        check=True,
        timeout=60,
    )
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    return tmp_path


def manage_in(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": f"sqlite:///{checkout / 'db.sqlite3'}",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_make_run_checkout_runs_the_documented_commands_as_written(make_run_checkout):
    settings = (make_run_checkout / ".env").read_text()
    assert "DEBUG=true" in settings.splitlines()
    assert len(settings.split("SECRET_KEY=")[1].split()[0]) >= 50
    assert (make_run_checkout / ".env").stat().st_mode & 0o077 == 0

    for command in (["migrate", "--noinput", "-v", "0"], ["seed_demo"]):
        result = manage_in(make_run_checkout, *command)
        assert result.returncode == 0, result.stderr
    result = manage_in(make_run_checkout, "issue_token", "bob")

    assert result.returncode == 0, result.stderr
    *_, announced, plain = result.stdout.strip().splitlines()
    assert announced.endswith("for bob:") and announced.startswith(f"Token {plain[:8]}")


def test_without_the_env_file_manage_py_still_refuses_to_start_without_a_secret_key(
    make_run_checkout,
):
    (make_run_checkout / ".env").unlink()

    result = manage_in(make_run_checkout, "issue_token", "bob")

    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr
