"""bench/profile_writes.py: a write's CPU attributed to phases by named functions, and a loud
failure when a named function is gone or called other than as expected (issue 30)."""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from bench import profile_writes
from bench.profile_writes import Phase, Probe, ProfileError, Write, attribute
from blogs.services import token_issue

HANDLER = (Probe("app/handler.py", "handle"),)


def synthetic(service_calls_from_post: int = 2) -> SimpleNamespace:
    """pstats' dictionary for 2 requests: 1.0 s in all, the handler 0.9 of it, authentication
    0.1, the service 0.5 when called from the view (0.1 more from elsewhere), of which 0.2 are
    renewals."""
    client = ("/x/app/client.py", 1, "request")
    handle = ("/x/app/handler.py", 1, "handle")
    post = ("/x/app/view.py", 1, "post")
    other = ("/x/app/other.py", 1, "elsewhere")
    service = ("/x/app/service.py", 1, "service")
    calls = service_calls_from_post
    return SimpleNamespace(
        stats={
            client: (1, 1, 0.1, 1.0, {}),
            handle: (2, 2, 0.2, 0.9, {client: (2, 2, 0.2, 0.9)}),
            ("/x/app/auth.py", 1, "auth"): (2, 2, 0.1, 0.1, {handle: (2, 2, 0.1, 0.1)}),
            post: (2, 2, 0.05, 0.6, {handle: (2, 2, 0.05, 0.6)}),
            other: (2, 2, 0.0, 0.1, {handle: (2, 2, 0.0, 0.1)}),
            service: (
                calls + 2,
                calls + 2,
                0.35,
                0.6,
                {post: (calls, calls, 0.3, 0.5), other: (2, 2, 0.05, 0.1)},
            ),
            ("/x/app/renew.py", 1, "renew"): (2, 2, 0.2, 0.2, {service: (2, 2, 0.2, 0.2)}),
        }
    )


def write(*extra: Phase) -> Write:
    return Write(
        "post_thing",
        "POST thing",
        201,
        (
            Phase("authentication", "authentication", (Probe("app/auth.py", "auth"),)),
            Phase(
                "service",
                "the service",
                (Probe("app/service.py", "service", caller=("app/view.py", "post")),),
            ),
            Phase("representations", "renewals", (Probe("app/renew.py", "renew"),), "service"),
            *extra,
        ),
    )


def shares(figures) -> dict[str, float]:
    return {figure.key: round(figure.share, 6) for figure in figures}


def test_phases_are_cumulative_times_the_rest_is_the_handler_less_them_and_the_client_apart():
    figures = attribute(synthetic(), write(), 2, HANDLER)

    assert shares(figures) == {
        "authentication": 0.1,
        "service": 0.5,  # only the calls from the view
        "representations": 0.2,
        "rest": 0.3,  # 0.9 - 0.1 - 0.5: the part within the service is not taken twice
        "client": 0.1,
    }
    top = [figure.share for figure in figures if figure.within is None]
    assert sum(top) == pytest.approx(1.0)


def test_a_function_never_seen_stops_the_attribution():
    gone = Phase("answer", "the answer", (Probe("app/view.py", "respond"),))

    with pytest.raises(ProfileError, match=r"app/view\.py:respond: never called"):
        attribute(synthetic(), write(gone), 2, HANDLER)


def test_a_function_called_more_often_than_once_a_request_stops_it():
    with pytest.raises(ProfileError, match=r"3 calls in 2 requests \(expected 1 a request\)"):
        attribute(synthetic(service_calls_from_post=3), write(), 2, HANDLER)


def test_a_phase_of_alternatives_needs_one_of_them():
    either = Phase(
        "read",
        "reading",
        (Probe("app/a.py", "one", alternative=True), Probe("app/b.py", "two", alternative=True)),
    )

    with pytest.raises(ProfileError, match="phase 'read' of post_thing: none of its functions"):
        attribute(synthetic(), write(either), 2, HANDLER)


def test_a_renamed_project_function_stops_it_even_as_an_alternative():
    renamed = Phase(
        "read",
        "reading",
        (
            Probe("app/auth.py", "auth", per_request=None, alternative=True),
            Probe("articles/api/lookups.py", "get_article_renamed", alternative=True),
        ),
    )

    with pytest.raises(ProfileError, match="get_article_renamed: no such function"):
        attribute(synthetic(), write(renamed), 2, HANDLER)


def test_every_function_the_writes_name_exists_in_the_project():
    probes = [
        probe
        for each in profile_writes.WRITES
        for phase in each.phases
        for probe in phase.probes
        if profile_writes.defined_in_project(probe) is not None
    ]

    assert len(probes) >= 20
    assert [probe for probe in probes if not profile_writes.defined_in_project(probe)] == []


def test_statement_names_give_the_verb_and_the_outermost_table():
    listed = profile_writes.classify(
        [
            "BEGIN",
            'SELECT "a"."id", (SELECT 1 FROM "blogs_blog" U0) AS "x" FROM "articles_article" a',
            'UPDATE "blogs_blog" SET "revision" = 2',
            'SELECT 1 AS "_check" WHERE COALESCE((NOT ("text" = \'\')), true)',
            'SAVEPOINT "s1"',
            'INSERT INTO "articles_comment" ("text") VALUES (\'from (here\')',
            'RELEASE SAVEPOINT "s1"',
            "COMMIT",
        ]
    )

    names = (
        "SELECT articles_article",
        "UPDATE blogs_blog",
        "SELECT 1 (a constraint's check)",
        "INSERT articles_comment",
    )
    assert listed == (names, 1, 1, 2)


@pytest.mark.django_db(transaction=True)  # the service's COMMIT and its on-commit work run
def test_three_requests_of_each_write_are_profiled_and_every_phase_is_seen(settings):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_READ = settings.RATE_LIMIT_WRITE = profile_writes.UNLIMITED_RATE
    User.objects.create_user("alice", password="alice-password")
    call_command("seed_bench", "--articles", "3", stdout=StringIO())
    _, token = token_issue(user=User.objects.get(username="alice"), name="profile")
    ids = dict(zip(("put", "comment"), profile_writes.bench_ids(limit=2), strict=True))
    client = Client()

    for each in profile_writes.WRITES:
        sender = profile_writes.Sender(client, each, token, ids)
        profile = profile_writes.profile_write(sender, each, requests=3, warmup=2, rounds=2)

        figures = {figure.key: figure for figure in profile.phases}
        assert list(figures) == [
            *(phase.key for phase in each.phases),
            "rest",
            "client",
        ]
        assert all(figure.seconds > 0 for figure in figures.values()), each.key
        assert sum(f.share for f in profile.phases if f.within is None) == pytest.approx(1.0)
        assert len(profile.rounds_ms) == 2
        assert profile.cpu_ms > 0
        assert profile.calls > 1000
        assert profile.statements.commits == 1
        assert any(name.startswith("INSERT") for name in profile.statements.names), each.key
        assert "ms per request" in profile_writes.table(profile)
