"""The edge reads a request as the origin does (issue 40, points 1, 3 and 5): the production
topology (nginx → Varnish with the shipped VCL and parameters → gunicorn) side by side with
gunicorn alone, for the same requests (docs/decisions/edge-requests.md).

Repeated headers are joined as gunicorn joins them, so every variant's copy stays intact; a
Range never turns an answer into an error, beside a writer or on a copy; long redirects and
many or large headers are taken or refused as the origin takes or refuses them; conditional
requests on a held copy are answered as the origin answers them; a Markdown bomb is refused at
write and bounded on every read through the edge (point 4). The three servers start once for the
module (its data is written once, and flushed at the end).
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import permutations

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from psycopg import sql

from articles import services as article_services
from blogs import services as blog_services
from blogs.models import Blog
from core.cache_control import SHARED_VARY
from tests.reliability.test_reverse_proxy import LONG_REDIRECTS
from tests.support.edge import INSTALL, VCL, Varnish, hit, shipped_params, varnishd_binary
from tests.support.load import API, write_headers
from tests.support.nginx import INSTALL as NGINX_INSTALL
from tests.support.nginx import SITE, Nginx, nginx_binary
from tests.support.servers import BASE_DIR, GunicornServer, Response, database_url

HAL = "application/hal+json"
HAL_FORMS = "application/prs.hal-forms+json"
BROWSER = "text/html, application/xhtml+xml"
ACCEPTS = ["*/*", BROWSER, HAL_FORMS, HAL]
# What each asks for alone (docs/rest.md): curl's `*/*` gets HAL, a browser the HTML page.
EXPECTED_TYPE = {"*/*": HAL, BROWSER: "text/html", HAL_FORMS: HAL_FORMS, HAL: HAL}
STATIC = "/static/site/site.css"  # collected under a hashed name too; this one is not immutable
GUNICORN_FIELDS = 100  # limit_request_fields, config/gunicorn.conf.py
# Header lines nginx and Varnish add on the way (X-Forwarded-*, X-Varnish, Via, the request id,
# Accept-Encoding): gunicorn counts them with the client's (deploy/varnish/varnishd.params).
ADDED_ON_THE_WAY = 8


def servers(test: Callable) -> Callable:
    # django_db: pytest-django creates the test database for the tests that ask for it; the
    # module's data is written before, outside each test's transaction.
    return pytest.mark.django_db(pytest.mark.postgres(pytest.mark.servers(test)))


def raw_request(
    port: int, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b""
) -> Response:
    """A request with exactly these header lines in this order, repeated names included."""
    connection_ = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection_.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers:
            connection_.putheader(name, value)
        if body:
            connection_.putheader("Content-Length", str(len(body)))
        connection_.endheaders(body or None)
        reply = connection_.getresponse()
        return Response(reply.status, reply.headers, reply.read())
    finally:
        connection_.close()


@dataclass
class Topology:
    origin: GunicornServer
    varnish: Varnish
    nginx: Nginx
    token: str
    blog_id: int
    article_id: int

    @property
    def article(self) -> str:
        return f"{API}/blogs/{self.blog_id}/articles/{self.article_id}"

    def as_origin(self, body: bytes) -> bytes:
        """A body read through nginx with its links as the origin alone writes them (they
        name the host and port each was asked on)."""
        return body.replace(f":{self.nginx.port}/".encode(), f":{self.origin.port}/".encode())

    def both(
        self, method: str, path: str, headers: list[tuple[str, str]] | None = None, *, via=None
    ) -> tuple[Response, Response]:
        """The same request to the origin alone, and through nginx and Varnish (or `via`)."""
        edge = via or self.nginx
        return (
            raw_request(self.origin.port, method, path, headers or []),
            raw_request(edge.port, method, path, headers or []),
        )


def whitenoise_off_by_one(path: str, value: str) -> bool:
    """whitenoise answers a one-byte range of a static file 416 (its end must exceed its
    start); the edge serves that byte (RFC 9110 14.1.2): the one answer where they differ."""
    return path.startswith("/static/") and value == "bytes=0-0"


def media_type(reply: Response) -> str:
    return reply.headers.get("Content-Type", "").split(";")[0]


@pytest.fixture(scope="module")
def topology(request, django_db_setup, django_db_blocker, collected_static) -> Iterator[Topology]:
    """gunicorn on the test database, Varnish in front with the shipped VCL and parameters, and
    nginx in front of Varnish with the shipped site: started once for the module."""
    if "servers" not in (request.config.option.markexpr or ""):
        pytest.skip("opt-in test: starts gunicorn processes: run with `pytest -m servers`")
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL)")
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (set REDIS_URL)")
    if varnishd_binary() is None:
        pytest.skip(f"varnishd is not installed: {INSTALL}")
    if nginx_binary() is None:
        pytest.skip(f"nginx is not installed: {NGINX_INSTALL}")
    with django_db_blocker.unblock():
        alice = get_user_model().objects.create_user("alice", "alice@example.org", "x")
        blog = Blog.objects.create(title="Alice's blog", description="Notes from Alice")
        blog.authors.add(alice)
        article = article_services.article_create(blog=blog, title="First post", content="Hi")
        _, token = blog_services.token_issue(user=alice, name="edge requests")
    origin = GunicornServer(
        env={
            "DATABASE_URL": database_url(connection.settings_dict),
            "REDIS_URL": settings.REDIS_URL,
            "RATE_LIMIT_ENABLED": "false",
            "BEHIND_TRUSTED_PROXY": "true",
            "TRUSTED_PROXY_HOPS": "2",
        }
    )
    varnish = Varnish(origin_port=origin.port)
    nginx = Nginx(upstream_port=varnish.port)
    try:
        origin.start()
        varnish.start()
        nginx.start()
        yield Topology(origin, varnish, nginx, token, blog.pk, article.pk)
    finally:
        nginx.stop()
        varnish.stop(keep_folder=False)
        origin.stop()
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)


# --- repeated headers ---------------------------------------------------------------------------


def vcl_sub(name: str) -> str:
    text = VCL.read_text()
    start = text.index(f"sub {name} {{")
    return text[start : text.index("\n}\n", start)]


def test_the_edge_joins_every_header_the_origin_reads_for_a_shared_answer():
    joined = re.findall(r'std\.collect\(req\.http\.([\w-]+), ","\);', VCL.read_text())
    hashed = set(re.findall(r"hash_data\(req\.http\.([\w-]+)\)", vcl_sub("vcl_hash")))
    conditions = {"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"}

    assert hashed == {"X-Forwarded-Proto", "X-Forwarded-Host"}
    assert {*SHARED_VARY, *hashed, *conditions, "Range", "If-Range"} <= set(joined)
    # Before anything in vcl_recv reads them.
    assert vcl_sub("vcl_recv").splitlines()[1].strip() == "call edge_join_repeated_headers;"


@servers
@pytest.mark.parametrize("resource", ["article", "page"])
def test_an_accept_sent_twice_in_any_order_leaves_every_variants_copy_intact(topology, resource):
    path = {"article": topology.article, "page": f"{API}/blogs/{topology.blog_id}/articles"}
    for first, second in [*permutations(ACCEPTS, 2), *((accept, accept) for accept in ACCEPTS)]:
        assert topology.varnish.purge("site").status == 200  # each pair meets an empty edge
        twice = [("Accept", first), ("Accept", second)]
        direct, edge = topology.both("GET", path[resource], twice)
        assert (edge.status, media_type(edge)) == (direct.status, media_type(direct)), twice

        for accept in ACCEPTS:
            direct, edge = topology.both("GET", path[resource], [("Accept", accept)])
            assert media_type(direct) == EXPECTED_TYPE[accept]
            assert (edge.status, media_type(edge)) == (direct.status, media_type(direct)), (
                f"{accept!r} after {twice}"
            )
            if media_type(direct) != "text/html":  # the page carries a per-request nonce
                assert topology.as_origin(edge.body) == direct.body


@servers
def test_conditions_and_ranges_sent_twice_reach_varnish_as_gunicorn_joins_them(topology):
    # nginx refuses a repeated If-* line itself (400, its "unique" headers): Varnish alone, as
    # `make serve-edge` runs it.
    etag = topology.both("GET", topology.article)[0].headers["ETag"]
    for name, first, second in [
        ("If-None-Match", '"other"', etag),
        ("If-None-Match", etag, '"other"'),
        ("If-Match", '"other"', etag),
        ("Range", "bytes=0-0", "bytes=1-1"),
    ]:
        lines = [("Accept", HAL), (name, first), (name, second)]
        raw_request(topology.varnish.port, "GET", topology.article, [("Accept", HAL)])
        direct, edge = topology.both("GET", topology.article, lines, via=topology.varnish)
        assert edge.status == direct.status, lines


# --- Range --------------------------------------------------------------------------------------

RANGES = [
    "x",
    "bytes=0-0",
    "bytes=0-3",
    "bytes=-3",
    "bytes=0-0,1-1",
    "bytes=99999999-",
    "bytes=5-3",
]


@servers
def test_a_range_on_a_copy_is_answered_as_the_origin_answers_it(topology):
    for path in (topology.article, f"{API}/", STATIC):
        raw_request(topology.nginx.port, "GET", path, [])  # held from here on
        for value in RANGES:
            direct, edge = topology.both("GET", path, [("Range", value)])
            assert hit(edge), (path, value)
            if whitenoise_off_by_one(path, value):
                assert (direct.status, edge.status, len(edge.body)) == (416, 206, 1)
                continue
            assert edge.status == direct.status, (path, value)
            assert topology.as_origin(edge.body) == direct.body, (path, value)
            assert edge.headers.get("Content-Range") == direct.headers.get("Content-Range")


@servers
def test_a_range_beside_a_writer_never_fails_a_write_or_a_read(topology, django_db_blocker):
    comments = f"{topology.article}/comments"
    passed = ["/healthz", "/livez", f"{API}/graphql?query=%7B__typename%7D", "/soap?wsdl"]
    cached = [topology.article, f"{API}/blogs/{topology.blog_id}/articles", STATIC]
    expected = {}
    for path in passed + cached:
        for value in RANGES:
            direct = topology.both("GET", path, [("Range", value)])[0].status
            expected[path, value] = 206 if whitenoise_off_by_one(path, value) else direct
    writes: list[int] = []
    wrong: list[tuple[str, str, int]] = []
    done = threading.Event()

    def writer() -> None:
        try:
            for number in range(120):
                reply = raw_request(
                    topology.nginx.port,
                    "POST",
                    comments,
                    [*write_headers(topology.token).items(), ("Content-Type", "application/json")],
                    json.dumps({"text": f"comment {number}"}).encode(),
                )
                writes.append(reply.status)
        finally:
            done.set()

    def ranger(paths: list[str], method: str = "GET") -> None:
        while not done.is_set():
            for path in paths:
                for value in RANGES:
                    status = raw_request(
                        topology.nginx.port, method, path, [("Range", value)]
                    ).status
                    if (method == "GET" and status != expected[path, value]) or status >= 500:
                        wrong.append((method, path, value, status))

    threads = [
        threading.Thread(target=writer),
        threading.Thread(target=ranger, args=(passed,)),
        threading.Thread(target=ranger, args=(cached,)),
        # An anonymous write, passed and refused (401), with a Range of its own.
        threading.Thread(target=ranger, args=([comments], "POST")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert writes == [201] * 120, sorted(set(writes))
    listed = topology.both("GET", comments, list(write_headers(topology.token).items()))[0]
    assert json.loads(listed.body)["totalComments"] == 120
    assert not wrong, wrong[:10]


# --- limits -------------------------------------------------------------------------------------


def varnish_param(name: str) -> int:
    value = next(v for p, v in (w.split("=") for w in shipped_params() if "=" in w) if p == name)
    return int(value[:-1]) * 1024 if value.endswith("k") else int(value)


def test_varnishs_parameters_are_written_once_for_the_unit_make_and_the_tests(tmp_path):
    unit = (BASE_DIR / "deploy" / "systemd" / "varnish.service").read_text()
    makefile = (BASE_DIR / "Makefile").read_text()

    assert "EnvironmentFile=/etc/varnish/varnishd.params" in unit
    assert re.search(r"^ExecStart=/usr/sbin/varnishd .* \$VARNISHD_PARAMS$", unit, re.M)
    # make reads the file itself, from any folder it is run in.
    printed = subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(BASE_DIR / "Makefile"),
            "-C",
            str(tmp_path),
            "--eval",
            "print-params: ; @echo $(VARNISHD_PARAMS)",
            "print-params",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.split()
    assert tuple(printed) == shipped_params()
    recipe = re.search(r"^serve-edge:.*?\n\n", makefile, re.M | re.S)[0]
    assert re.search(r"\$\(VARNISHD\) .*\$\(VARNISHD_PARAMS\)$", recipe.replace("\\\n", ""), re.M)
    # Nothing nginx passes on is over Varnish's limits: its answer header buffer (the longest
    # Location, docs/decisions/long-redirects.md), its header lines and the origin's count.
    nginx_answer = int(re.search(r"proxy_buffer_size (\d+)k;", SITE.read_text())[1]) * 1024
    assert varnish_param("http_resp_hdr_len") >= nginx_answer
    assert varnish_param("http_resp_size") >= nginx_answer
    assert varnish_param("http_max_hdr") >= GUNICORN_FIELDS + ADDED_ON_THE_WAY + 5


@servers
def test_the_longest_redirects_reach_the_client_through_the_edge(topology):
    for what, target, status, location_starts in LONG_REDIRECTS:
        direct, edge = topology.both("GET", target)

        assert edge.status == direct.status == status, what
        assert edge.headers["Location"] == direct.headers["Location"], what
        assert edge.headers["Location"].startswith(location_starts), what
    assert len(edge.headers["Location"]) > 16384 - 3  # the last: as long as Django sends


def filler(count: int, size: int = 10) -> list[tuple[str, str]]:
    return [(f"X-Filler-{number}", "v" * size) for number in range(count)]


@servers
def test_many_and_large_headers_are_taken_or_refused_as_the_origin_takes_or_refuses_them(
    topology,
):
    # http.client adds Host: the origin takes up to 99 of a client's own lines.
    for count in (55, 64, 90, GUNICORN_FIELDS, GUNICORN_FIELDS + 1, 150, 240):
        path = f"{API}/blogs?count={count}"  # a miss each: the origin reads them
        direct, edge = topology.both("GET", path, filler(count))
        assert direct.status == (200 if count < GUNICORN_FIELDS else 431), count
        assert edge.status == direct.status, count
    # Near the bound the origin also counts what nginx and Varnish added: a 431, never an
    # error of the edge's own.
    answers = {}
    for count in range(GUNICORN_FIELDS - ADDED_ON_THE_WAY - 1, GUNICORN_FIELDS):
        answers[count] = raw_request(
            topology.nginx.port, "GET", f"{API}/blogs?near={count}", filler(count)
        ).status
    assert set(answers.values()) <= {200, 431}, answers
    assert answers[GUNICORN_FIELDS - ADDED_ON_THE_WAY - 1] == 200, answers
    # One line up to gunicorn's 8,190 bytes, and one over it.
    for size, status in ((8000, 200), (8170, 200), (8200, 431), (16000, 431)):
        direct, edge = topology.both("GET", f"{API}/blogs?size={size}", filler(1, size))
        assert (direct.status, edge.status) == (status, status), size


# --- conditional requests -----------------------------------------------------------------------


@servers
def test_conditional_requests_on_a_held_copy_are_answered_as_the_origin_answers_them(topology):
    held = raw_request(topology.nginx.port, "GET", topology.article, [("Accept", HAL)])
    etag, modified = held.headers["ETag"], held.headers["Last-Modified"]
    later, earlier = "Fri, 01 Jan 2100 00:00:00 GMT", "Thu, 01 Jan 2015 00:00:00 GMT"
    table = [
        [("If-None-Match", etag)],
        [("If-None-Match", f"W/{etag}")],
        [("If-None-Match", f'"other", {etag}')],
        [("If-None-Match", '"other", "another"')],
        [("If-None-Match", "*")],
        [("If-None-Match", "not a tag")],
        [("If-Match", '"other"')],
        [("If-Match", etag)],
        [("If-Match", "*")],
        [("If-Unmodified-Since", earlier)],
        [("If-Unmodified-Since", later)],
        [("If-Modified-Since", modified)],
        [("If-Modified-Since", earlier)],
        [("If-Modified-Since", "not a date")],
        # RFC 9110 13.2.2: If-None-Match decides, If-Modified-Since is not read.
        [("If-None-Match", '"other"'), ("If-Modified-Since", later)],
        [("If-None-Match", etag), ("If-Modified-Since", earlier)],
        # If-Match before If-None-Match, If-Unmodified-Since before If-Modified-Since.
        [("If-Match", '"other"'), ("If-None-Match", etag)],
        [("If-Unmodified-Since", earlier), ("If-Modified-Since", later)],
    ]
    for conditions in table:
        for method in ("GET", "HEAD"):
            headers = [("Accept", HAL), *conditions]
            direct, edge = topology.both(method, topology.article, headers)
            assert edge.status == direct.status, (method, conditions)
    # A shared answer without Last-Modified (the API root): the origin does not compare dates.
    raw_request(topology.nginx.port, "GET", f"{API}/", [])
    direct, edge = topology.both("GET", f"{API}/", [("If-Modified-Since", later)])
    assert "Last-Modified" not in direct.headers
    assert hit(edge) and edge.status == direct.status == 200


# --- a content bomb through the edge (issue 40, point 4) ----------------------------------------


@servers
def test_a_markdown_bomb_is_refused_at_write_and_bounded_on_every_read_through_the_edge(
    topology, django_db_blocker
):
    """gunicorn's own budget (MARKDOWN_RENDER_BUDGET_MS, the production default): a write of
    1 MiB of `[` is a 422 with nothing written; the same content stored before the bound is
    shown as text by REST, GraphQL, the feed and a preview link, each a 200."""
    from articles.models import Article
    from drafts.models import Draft
    from tests.support.pathological_markdown import PATTERNS, at_size

    bomb = at_size(PATTERNS["nested brackets ["], settings.MAX_BODY_BYTES)
    articles = f"{API}/blogs/{topology.blog_id}/articles"
    write = [*write_headers(topology.token).items(), ("Content-Type", "application/json")]
    payload = {"title": "Bomb", "content": bomb, "contentFormat": "markdown"}
    refused = raw_request(
        topology.nginx.port, "POST", articles, write, json.dumps(payload).encode()
    )
    assert refused.status == 422, refused.body[:300]
    assert json.loads(refused.body)["type"].endswith("/docs/problems/content-too-complex")
    with django_db_blocker.unblock():
        assert not Article.objects.filter(title="Bomb").exists()
    # The same content stored before the bound: written as text (never refused), then made
    # Markdown behind the service's back, committed for gunicorn to read.
    drafts = f"{API}/blogs/{topology.blog_id}/drafts"
    ids = []
    for collection, title in ((articles, "Old bomb"), (drafts, "Old draft")):
        as_text = json.dumps({"title": title, "content": bomb}).encode()
        created = raw_request(topology.nginx.port, "POST", collection, write, as_text)
        assert created.status == 201, created.body[:300]
        ids.append(json.loads(created.body)["id"])
    with psycopg.connect(database_url(connection.settings_dict), autocommit=True) as db:
        for table, row in zip((Article, Draft), ids, strict=True):
            update = "UPDATE {} SET content_format = 'markdown' WHERE id = %s"
            db.execute(sql.SQL(update).format(sql.Identifier(table._meta.db_table)), (row,))
    stored_id, draft_id = ids
    text = f"<p>{bomb}</p>"

    article = raw_request(topology.nginx.port, "GET", f"{articles}/{stored_id}", [("Accept", HAL)])
    assert article.status == 200
    assert json.loads(article.body)["contentHtml"] == text

    query = {
        "query": "query($b: ID!, $a: ID!) { article(blogId: $b, id: $a) { contentHtml } }",
        "variables": {"b": topology.blog_id, "a": stored_id},
    }
    graphql = raw_request(
        topology.nginx.port,
        "POST",
        "/graphql",
        [("Content-Type", "application/json"), ("Accept", "application/json")],
        json.dumps(query).encode(),
    )
    assert graphql.status == 200, graphql.body[:300]
    assert json.loads(graphql.body) == {"data": {"article": {"contentHtml": text}}}

    feed = raw_request(topology.nginx.port, "GET", f"{API}/blogs/{topology.blog_id}/feed", [])
    assert feed.status == 200
    assert bomb[:1000].encode() in feed.body

    link = raw_request(
        topology.nginx.port,
        "POST",
        f"{API}/blogs/{topology.blog_id}/drafts/{draft_id}/preview",
        write,
    )
    assert link.status == 201, link.body[:300]
    href = json.loads(link.body)["href"]
    preview = raw_request(
        topology.nginx.port, "GET", href[href.index("/api/") :], [("Accept", BROWSER)]
    )
    assert preview.status == 200
    assert text.encode() in preview.body
