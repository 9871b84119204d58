"""Where a write's time goes (issue 30): each write profiled in process, its CPU by phase.

```
.venv/bin/python -m bench.profile_writes --database-url postgres://postgres@127.0.0.1:5432/NAME \
    [--redis-url redis://127.0.0.1:6379/N] [--requests 300] [--json PATH]
```

The database is prepared as the bench prepares its main database (bench/prepare.py: migrate,
`seed_bench`, `issue_token alice`), then Django starts in this process with the service's
production settings (`config.settings.base`, `DEBUG=false`, rate limits on at the bench's
unreachable rate) and `django.test.Client` sends the bench's three writes with the headers a
client sends: PUT of an article of blog 1 with `If-Match` (the ETag the previous PUT answered),
POST of an article into blog 2, POST of a comment on another article of blog 1. Each request
runs between two `close_old_connections()`, as a server's request_started and request_finished
run them (the test client leaves them out): the connection is kept (CONN_MAX_AGE) and checked
once a request (CONN_HEALTH_CHECKS, a `SELECT 1` outside Django's statement log).

For each write: a warm-up, then the statements of one request (the commonest list of
STATEMENT_SAMPLES requests, every connection's; BEGIN and COMMIT counted apart, savepoints left
out of the list), the CPU per request without a profiler (`time.process_time` over N requests,
the median of ROUNDS rounds), and a cProfile on `time.process_time` over N more. The profile's
CPU is attributed to phases by the cumulative time of named functions of the project (the
writes' Phase lists), some counted only when called from the view (a caller edge of pstats);
the rest of the handler (middleware, DRF's dispatch,
negotiation, rendering, logging) is the handler's time less the phases, and what the test
client does around the handler is shown apart. A named function that is never seen, or not
called as often as it must be, stops the tool (ProfileError): a rename cannot zero a phase.

The phases' shares are of the profiled CPU; their milliseconds are the share times the CPU per
request measured without the profiler, which adds more to code that makes many small calls: the
shares are an estimate, the unprofiled total is a measurement.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import logging
import os
import pstats
import re
import secrets
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import prepare

ROOT = prepare.ROOT
API = "/api/v1.2/blogs"
UNLIMITED_RATE = "1000000/s"  # bench/run.py's: limits on and counted, never refusing
HAL = "application/hal+json"
WARMUP = 30
ROUNDS = 3
STATEMENT_SAMPLES = 10
COMMENT_TEXT = "A comment from the benchmark."
PUT_CONTENT = "Replaced by the benchmark."
SAVEPOINT_WORDS = ("SAVEPOINT", "RELEASE", "ROLLBACK TO SAVEPOINT")


class ProfileError(RuntimeError):
    """The profile cannot be attributed as named (a function renamed, called more or less often
    than expected) or a request did not answer as it must."""


# --- What a phase is made of --------------------------------------------------------------------

Code = tuple[str, str]  # (file suffix, function name)


@dataclass(frozen=True)
class Probe:
    """A function's cumulative time, or only that of its calls from `caller`.

    `per_request`: how many calls each request makes (checked when seen; None: any number).
    `alternative`: it may be absent (the before and after of a change name different functions);
    its phase then needs one of its probes seen. `counted` False: only checked, its time not
    added (the service's own function, whose time the transaction's wrapper already holds)."""

    file: str
    function: str
    caller: Code | None = None
    per_request: int | None = 1
    alternative: bool = False
    counted: bool = True

    def describe(self) -> str:
        own = f"{self.file}:{self.function}"
        return f"{own} called from {self.caller[0]}:{self.caller[1]}" if self.caller else own


@dataclass(frozen=True)
class Phase:
    key: str
    label: str
    probes: tuple[Probe, ...]
    within: str | None = None  # a part of that phase (not subtracted again from the rest)


@dataclass(frozen=True)
class Write:
    key: str
    label: str
    status: int
    phases: tuple[Phase, ...]


# The handler, as a server runs it: the test client's WSGI handler (request, middleware, view,
# response) and the connection upkeep of request_started and request_finished.
HANDLER = (
    Probe("django/test/client.py", "__call__"),
    Probe(
        "django/db/__init__.py",
        "close_old_connections",
        caller=("bench/profile_writes.py", "send"),
        per_request=2,
    ),
)

VIEWS = "articles/api/views/articles.py"
COMMENT_VIEWS = "articles/api/views/comments.py"


def _common(view: Code, service: str) -> tuple[Phase, ...]:
    """Authentication, the rate limit and the service, as every write has them; `view` is the
    function that calls the service (the transaction's wrapper is timed from there, so the
    service includes its COMMIT and the work run at the commit)."""
    return (
        Phase(
            "authentication",
            "authentication (X-Access-Token)",
            (Probe("rest/authentication.py", "authenticate"),),
        ),
        Phase(
            "rate_limit",
            "rate limit (throttles, RateLimit headers)",
            (
                Probe("rest/throttling.py", "allow_request", per_request=2),  # read's and write's
                Probe("core/ratelimit.py", "shown"),
                Probe("core/ratelimit.py", "headers"),
            ),
        ),
        Phase(
            "service",
            f"the service (services.{service}, its COMMIT and on-commit work)",
            (
                # transaction.atomic's wrapper (contextlib.ContextDecorator) around the service.
                Probe("contextlib.py", "inner", caller=view),
                Probe("articles/services.py", service, counted=False),
            ),
        ),
        Phase(
            "representations",
            "… of which representation-cache renewals",
            (
                Probe("core/representations.py", "changed"),
                Probe("core/representations.py", "renew_at_commit"),
            ),
            within="service",
        ),
        Phase(
            "outbox",
            "… of which outbox / webhooks (announce)",
            (Probe("articles/signals.py", "announce"),),
            within="service",
        ),
    )


def _ordered(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    order = ("authentication", "rate_limit", "read", "body", "service", "representations")
    order += ("outbox", "answer")
    return tuple(sorted(phases, key=lambda phase: order.index(phase.key)))


PUT_ARTICLE = Write(
    "put_article",
    "PUT article (If-Match)",
    200,
    _ordered(
        (
            *_common((VIEWS, "put"), "article_replace"),
            Phase(
                "read",
                "reading the article (lookups.get_article_to_write)",
                (Probe("articles/api/lookups.py", "get_article_to_write"),),
            ),
            Phase("body", "reading the body", (Probe(VIEWS, "read_article_body"),)),
            Phase("answer", "the answer (article_response)", (Probe(VIEWS, "article_response"),)),
        )
    ),
)

POST_ARTICLE = Write(
    "post_article",
    "POST article",
    201,
    _ordered(
        (
            *_common((VIEWS, "create"), "article_create"),
            Phase(
                "read",
                "reading the blog (lookups.get_blog_to_write)",
                (Probe("articles/api/lookups.py", "get_blog_to_write"),),
            ),
            Phase("body", "reading the body", (Probe(VIEWS, "read_article_body"),)),
            Phase("answer", "the answer (article_response)", (Probe(VIEWS, "article_response"),)),
        )
    ),
)

_COMMENT_POST = (COMMENT_VIEWS, "post")
_COMMENT_CREATE = (COMMENT_VIEWS, "create")

POST_COMMENT = Write(
    "post_comment",
    "POST comment",
    201,
    _ordered(
        (
            *_common(_COMMENT_CREATE, "comment_create"),
            Phase(
                "read",
                "reading the article (lookups)",
                tuple(
                    Probe("articles/api/lookups.py", name, caller=_COMMENT_POST, alternative=True)
                    for name in ("get_article_to_comment", "get_blog", "get_article")
                ),
            ),
            Phase(
                "body",
                "reading the body (CommentInputSerializer)",
                (
                    Probe("rest/views.py", "json_object", caller=_COMMENT_CREATE),
                    Probe("rest_framework/serializers.py", "is_valid", caller=_COMMENT_CREATE),
                ),
            ),
            Phase(
                "answer",
                "the answer (CommentSerializer, validators)",
                (
                    Probe("rest_framework/serializers.py", "data", caller=_COMMENT_CREATE),
                    Probe(COMMENT_VIEWS, "comment_validators", caller=_COMMENT_CREATE),
                ),
            ),
        )
    ),
)

WRITES = (PUT_ARTICLE, POST_ARTICLE, POST_COMMENT)


# --- Attribution ----------------------------------------------------------------------------------


def _is(code: tuple[str, int, str], file: str, function: str) -> bool:
    filename = code[0].replace(os.sep, "/")
    return code[2] == function and (filename == file or filename.endswith("/" + file))


def probe_time(entries: dict, probe: Probe) -> tuple[float, int]:
    """(cumulative seconds, calls) of `probe` in pstats entries."""
    seconds, calls = 0.0, 0
    for code, (_, total_calls, _, cumulative, callers) in entries.items():
        if not _is(code, probe.file, probe.function):
            continue
        if probe.caller is None:
            seconds += cumulative
            calls += total_calls
            continue
        for caller, edge in callers.items():
            if _is(caller, *probe.caller):
                calls += edge[0]  # cProfile's edges: (calls, primitive calls, own, cumulative)
                seconds += edge[3]
    return seconds, calls


def defined_in_project(probe: Probe, root: Path = ROOT) -> bool | None:
    """Whether the project file names that function (nested ones too); None for a file that is
    not the project's (a library's)."""
    path = root / probe.file
    if not path.is_file():
        return None
    names: set[str] = set()
    pending = [compile(path.read_text(), str(path), "exec")]
    while pending:
        code = pending.pop()
        names.add(code.co_name)
        pending.extend(const for const in code.co_consts if hasattr(const, "co_consts"))
    return probe.function in names


@dataclass
class PhaseFigure:
    key: str
    label: str
    seconds: float
    share: float = 0.0
    within: str | None = None
    calls: dict[str, int] = field(default_factory=dict)


def attribute(
    stats: pstats.Stats, write: Write, requests: int, handler_probes: tuple[Probe, ...] = HANDLER
) -> list[PhaseFigure]:
    """The profile's CPU by phase: the write's phases, the rest of the handler, and the test
    client around it; shares of the whole profile. ProfileError when a probe is wrong."""
    entries = stats.stats  # code -> (primitive calls, calls, own, cumulative, callers)
    total = sum(entry[2] for entry in entries.values())
    if total <= 0:
        raise ProfileError("the profile is empty")
    problems: list[str] = []

    def measured(probes: Iterable[Probe]) -> tuple[float, dict[str, int]]:
        seconds, calls = 0.0, {}
        for probe in probes:
            if defined_in_project(probe) is False:
                problems.append(f"{probe.describe()}: no such function in {probe.file}")
            spent, count = probe_time(entries, probe)
            calls[probe.describe()] = count
            if count == 0 and not probe.alternative:
                problems.append(f"{probe.describe()}: never called")
            elif count and probe.per_request and count != probe.per_request * requests:
                problems.append(
                    f"{probe.describe()}: {count} calls in {requests} requests"
                    f" (expected {probe.per_request} a request)"
                )
            if probe.counted:
                seconds += spent
        return seconds, calls

    handler, handler_calls = measured(handler_probes)
    figures = []
    for phase in write.phases:
        seconds, calls = measured(phase.probes)
        if not any(calls.values()):
            problems.append(f"phase {phase.key!r} of {write.key}: none of its functions was called")
        figures.append(
            PhaseFigure(phase.key, phase.label, seconds, within=phase.within, calls=calls)
        )
    if problems:
        raise ProfileError(f"{write.key}: " + "; ".join(problems))
    top = sum(figure.seconds for figure in figures if figure.within is None)
    for figure in figures:
        if figure.within is not None:
            parent = next(other for other in figures if other.key == figure.within)
            if figure.seconds > parent.seconds * 1.001:
                raise ProfileError(f"{write.key}: {figure.key} is more than {parent.key}")
    rest = handler - top
    if rest < -0.001 * total or handler > total * 1.001:
        raise ProfileError(f"{write.key}: the phases overlap (rest {rest:.6f} s of {handler:.6f})")
    figures.append(
        PhaseFigure(
            "rest",
            "the rest (middleware, DRF dispatch, negotiation, rendering, logging)",
            max(rest, 0.0),
        )
    )
    figures.append(
        PhaseFigure(
            "client",
            "the test client around the handler (not the service's)",
            max(total - handler, 0.0),
            calls=handler_calls,
        )
    )
    for figure in figures:
        figure.share = figure.seconds / total
    return figures


# --- Statements -----------------------------------------------------------------------------------


def _from_table(sql: str) -> str:
    """The table of the outermost FROM (a SELECT's columns may hold subqueries)."""
    depth, index, upper = 0, 0, sql.upper()
    while index < len(sql):
        char = sql[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "'":
            index = sql.find("'", index + 1)
            if index < 0:
                break
        elif depth == 0 and upper.startswith(" FROM ", index):
            match = re.match(r'\s*"?([\w.]+)"?', sql[index + 6 :])
            return match.group(1) if match else ""
        index += 1
    return ""


def statement_name(sql: str) -> str:
    """`SELECT articles_article`, `UPDATE blogs_blog`, `INSERT articles_comment`, …"""
    words = sql.split()
    if not words:
        return ""
    verb = words[0].upper()
    table = ""
    if verb == "SELECT":
        table = _from_table(sql) or ("1 (a constraint's check)" if '"_check"' in sql else "")
    elif verb in ("UPDATE", "INSERT", "DELETE") and len(words) > 1:
        index = 2 if verb in ("INSERT", "DELETE") and len(words) > 2 else 1
        table = words[index].strip('"')
    return f"{verb} {table}".strip()


@dataclass
class Statements:
    names: list[str]
    begins: int
    commits: int
    savepoints: int
    same_in: int  # of the samples, how many ran exactly these
    samples: int

    def as_text(self) -> str:
        listed = ", ".join(self.names) or "none"
        return (
            f"{len(self.names)} statements: {listed}; BEGIN {self.begins}, COMMIT {self.commits}"
            f", savepoints {self.savepoints} (the same in {self.same_in} of {self.samples}"
            " requests)"
        )


def classify(queries: Iterable[str]) -> tuple[tuple[str, ...], int, int, int]:
    names, begins, commits, savepoints = [], 0, 0, 0
    for sql in queries:
        upper = sql.lstrip().upper()
        if upper.startswith("BEGIN"):
            begins += 1
        elif upper.startswith("COMMIT"):
            commits += 1
        elif upper.startswith(SAVEPOINT_WORDS):
            savepoints += 1
        else:
            names.append(statement_name(sql))
    return tuple(names), begins, commits, savepoints


def capture_statements(request: Callable[[], Any], samples: int) -> Statements:
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    seen: Counter = Counter()
    for _ in range(samples):
        with ExitStack() as stack:
            contexts = [
                stack.enter_context(CaptureQueriesContext(connections[alias]))
                for alias in connections
            ]
            request()
        seen[
            classify(query["sql"] for context in contexts for query in context.captured_queries)
        ] += 1
    (names, begins, commits, savepoints), count = seen.most_common(1)[0]
    return Statements(list(names), begins, commits, savepoints, count, samples)


# --- Requests -------------------------------------------------------------------------------------


def send(client: Any, method: str, path: str, body: dict, headers: dict[str, str]) -> Any:
    """One request as a server serves it: the connection kept or closed before and after
    (request_started, request_finished), which the test client leaves out."""
    from django.db import close_old_connections

    close_old_connections()
    response = client.generic(
        method, path, json.dumps(body), content_type="application/json", headers=headers
    )
    close_old_connections()
    return response


def bench_ids(limit: int) -> list[int]:
    """The first live, unlocked articles of blog 1 (bench/prepare.py's bench_article_ids, in
    process): the PUT's, then the comments'."""
    from articles.models import Article

    live = Article.objects.live().in_blog(1).filter(locked=False).order_by("id")
    return list(live.values_list("id", flat=True)[:limit])


class Sender:
    """Sends one write again and again, each answer checked (status; a PUT's ETag kept)."""

    def __init__(self, client: Any, write: Write, token: str, ids: dict[str, int]) -> None:
        self.client, self.write, self.number, self.etag = client, write, 0, None
        self.headers = {"Accept": HAL, "X-Access-Token": token}
        if write.key == "put_article":
            self.method, self.path = "PUT", f"{API}/1/articles/{ids['put']}"
        elif write.key == "post_article":
            self.method, self.path = "POST", f"{API}/2/articles"
        else:
            self.method, self.path = "POST", f"{API}/1/articles/{ids['comment']}/comments"

    def body(self) -> dict[str, str]:
        if self.write.key == "put_article":
            return {"title": f"Benchmark PUT {self.number}", "content": PUT_CONTENT}
        if self.write.key == "post_article":
            return {"title": "Posted by the benchmark", "content": "A new article."}
        return {"text": COMMENT_TEXT}

    def __call__(self) -> None:
        headers = self.headers
        if self.method == "PUT":
            if self.etag is None:  # the first time: read the article's ETag, as the bench does
                self.etag = self.client.get(self.path, headers={"Accept": HAL})["ETag"]
            headers = {**headers, "If-Match": self.etag}
        self.number += 1
        response = send(self.client, self.method, self.path, self.body(), headers)
        if response.status_code != self.write.status:
            raise ProfileError(
                f"{self.write.label}: HTTP {response.status_code}, not {self.write.status}:"
                f" {response.content[:300]!r}"
            )
        if self.method == "PUT":
            self.etag = response.get("ETag")
            if not self.etag:
                raise ProfileError(f"{self.write.label}: no ETag on the answer")


@dataclass
class WriteProfile:
    write: Write
    requests: int
    cpu_ms: float  # CPU per request without a profiler
    profiled_ms: float  # the same under cProfile
    statements: Statements
    phases: list[PhaseFigure]
    rounds_ms: list[float] = field(default_factory=list)  # each unprofiled round's
    calls: float = 0.0  # Python function calls per request under the profiler: load-independent

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.write.label,
            "requests": self.requests,
            "cpu_ms_per_request": round(self.cpu_ms, 4),
            "rounds_cpu_ms_per_request": [round(value, 4) for value in self.rounds_ms],
            "profiled_cpu_ms_per_request": round(self.profiled_ms, 4),
            "function_calls_per_request": round(self.calls, 1),
            "statements": {
                "list": self.statements.names,
                "count": len(self.statements.names),
                "begin": self.statements.begins,
                "commit": self.statements.commits,
                "savepoints": self.statements.savepoints,
                "same_in": self.statements.same_in,
                "samples": self.statements.samples,
            },
            "phases": [
                {
                    "key": figure.key,
                    "label": figure.label,
                    "within": figure.within,
                    "share": round(figure.share, 5),
                    "ms_per_request": round(figure.share * self.cpu_ms, 4),
                    "calls": figure.calls,
                }
                for figure in self.phases
            ],
        }


def profile_write(
    sender: Callable[[], None],
    write: Write,
    *,
    requests: int,
    warmup: int = WARMUP,
    rounds: int = ROUNDS,
) -> WriteProfile:
    """Warm-up, statements, `rounds` unprofiled rounds of `requests` (the median round's CPU per
    request is the figure: a busy machine moves single rounds), then one profiled round."""
    for _ in range(warmup):
        sender()
    statements = capture_statements(sender, STATEMENT_SAMPLES)
    per_round = []
    for _ in range(rounds):
        gc.collect()
        started = time.process_time()
        for _ in range(requests):
            sender()
        per_round.append((time.process_time() - started) / requests * 1000)
    gc.collect()
    profiler = cProfile.Profile(time.process_time)
    started = time.process_time()
    profiler.enable()
    for _ in range(requests):
        sender()
    profiler.disable()
    profiled = (time.process_time() - started) / requests * 1000
    stats = pstats.Stats(profiler)
    phases = attribute(stats, write, requests)
    cpu = statistics.median(per_round)
    calls = sum(entry[1] for entry in stats.stats.values()) / requests
    return WriteProfile(write, requests, cpu, profiled, statements, phases, per_round, calls)


# --- Report ---------------------------------------------------------------------------------------


def table(profile: WriteProfile) -> str:
    lines = [
        f"#### {profile.write.label}",
        "",
        f"CPU per request: **{profile.cpu_ms:.2f} ms** without the profiler (the median of"
        f" {len(profile.rounds_ms)} rounds of {profile.requests} requests:"
        f" {', '.join(f'{value:.2f}' for value in profile.rounds_ms)});"
        f" {profile.profiled_ms:.2f} ms under cProfile, {profile.calls:,.0f} function calls"
        " (cProfile's count, which the machine's load does not move).",
        "",
        "| phase | share of CPU | ms per request |",
        "|---|---:|---:|",
    ]
    for figure in profile.phases:
        lines.append(
            f"| {figure.label} | {figure.share * 100:.1f} % | {figure.share * profile.cpu_ms:.2f} |"
        )
    lines += ["", f"Statements: {profile.statements.as_text()}.", ""]
    return "\n".join(lines)


def commit_id() -> str:
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return result.stdout.strip() or "unknown"


# --- Running it -----------------------------------------------------------------------------------


def environment(database_url: str, redis_url: str) -> dict[str, str]:
    """The service's production settings, as bench/run.py gives its servers, for the test
    client's host."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),  # in process only, new for every run
        "ALLOWED_HOSTS": "testserver",
        "ALLOWED_PORTS": "*",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "RATE_LIMIT_ENABLED": "true",
        "RATE_LIMIT_READ": UNLIMITED_RATE,
        "RATE_LIMIT_WRITE": UNLIMITED_RATE,
    }


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def _quiet_logs() -> _Warnings:
    """The service logs each request as in production (its cost is measured), to /dev/null;
    warnings are kept and shown at the end."""
    devnull = open(os.devnull, "w")  # noqa: SIM115 (for the whole run)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(devnull)
    warnings = _Warnings()
    logging.getLogger().addHandler(warnings)
    return warnings


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.profile_writes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--database-url", required=True, help="postgres://… (or sqlite:///…)")
    parser.add_argument("--redis-url", default="", help="the shared store; none: the database's")
    parser.add_argument("--requests", type=int, default=300, help="N, per measure (300)")
    parser.add_argument("--warmup", type=int, default=WARMUP, help=f"({WARMUP})")
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"unprofiled rounds of N, median ({ROUNDS})"
    )
    parser.add_argument("--articles", type=int, default=1000, help="blog 1's articles (1000)")
    parser.add_argument("--fresh", action="store_true", help="drop the PostgreSQL database first")
    parser.add_argument("--json", type=Path, help="write the figures there too")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    env = environment(args.database_url, args.redis_url)
    load_before = os.getloadavg()
    if args.database_url.startswith("postgres"):
        prepare.ensure_postgres_database(args.database_url, fresh=args.fresh)
    print(f"preparing the database ({args.articles} articles)", file=sys.stderr, flush=True)
    prepare.prepare_database(env, articles=args.articles)
    token, _ = prepare.issue_token(env)
    os.environ.update(env)

    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    warnings = _quiet_logs()
    client = Client()
    ids = dict(zip(("put", "comment"), bench_ids(limit=2), strict=True))
    profiles = []
    for write in WRITES:
        print(f"profiling {write.label}", file=sys.stderr, flush=True)
        sender = Sender(client, write, token, ids)
        profiles.append(
            profile_write(
                sender, write, requests=args.requests, warmup=args.warmup, rounds=args.rounds
            )
        )
    load_after = os.getloadavg()
    context = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit_id(),
        "database": connection.vendor,
        "store": "Redis" if args.redis_url else "the database store",
        "requests": args.requests,
        "articles": args.articles,
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in load_after],
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    print(
        f"### Commit {context['commit']}, {context['date']}: {context['database']},"
        f" {context['store']}, {args.articles} articles, N={args.requests}; load average"
        f" {' '.join(map(str, context['load_average_before']))} before,"
        f" {' '.join(map(str, context['load_average_after']))} after"
        f" ({context['cpus']} CPUs)\n"
    )
    for profile in profiles:
        print(table(profile))
    if warnings.messages:
        print(
            f"{len(warnings.messages)} warnings, the first: {warnings.messages[:3]}",
            file=sys.stderr,
        )
    if args.json:
        figures = {"context": context, "writes": {p.write.key: p.as_dict() for p in profiles}}
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
