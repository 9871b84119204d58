"""The shipped Varnish configuration's own rules (deploy/varnish/blog-service.vcl), on the real
varnishd in front of a scripted origin that sends the headers the service sends (or fails as
the test says): what is kept and for how long, what always passes, purges, conditional
requests, and stale copies (served while the origin fails, never instead of a fresh answer it
can give). The service behind the same file: tests/reliability/test_edge.py."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest

from tests.support.edge import (
    INSTALL,
    Answer,
    ScriptedOrigin,
    Varnish,
    hit,
    until,
    varnishd_binary,
)

pytestmark = [pytest.mark.servers]


def public(
    s_maxage: int = 300, swr: int = 30, sie: int = 86400, keys: str = "article:1 site", **extra
) -> dict[str, str]:
    """The headers of a shareable answer, as core.edge writes them."""
    return {
        "Cache-Control": (
            f"public, max-age=0, s-maxage={s_maxage}, stale-while-revalidate={swr}, "
            f"stale-if-error={sie}"
        ),
        "Vary": "Accept, Accept-Encoding",
        "xkey": keys,
        "ETag": '"v1-etag"',
        "Last-Modified": "Wed, 25 Nov 2026 10:00:00 GMT",
        **extra,
    }


@pytest.fixture
def edge() -> Iterator[tuple[ScriptedOrigin, Varnish]]:
    if varnishd_binary() is None:
        pytest.skip(f"varnishd is not installed: {INSTALL}")
    with ScriptedOrigin() as origin, Varnish(origin_port=origin.port) as varnish:
        yield origin, varnish


def body(reply) -> bytes:
    return reply.body.strip()


# --- kept, and for whom ------------------------------------------------------------------------


def test_a_public_answer_is_fetched_once_then_served_from_the_edge(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))

    first, second, head = (
        varnish.request("GET", "/a"),
        varnish.request("GET", "/a"),
        varnish.request("HEAD", "/a"),
    )

    assert (first.status, first.headers["X-Cache"]) == (200, "MISS")
    assert (second.status, second.headers["X-Cache"]) == (200, "HIT")
    assert hit(head)
    assert body(first) == body(second) == b"/a v1"
    assert origin.fetches()["/a"] == 1
    # The surrogate keys and the file's own notes stay between the origin and the edge.
    for reply in (first, second):
        assert "xkey" not in reply.headers
        assert not [name for name in reply.headers if name.lower().startswith("x-edge-")]


def test_each_answer_carries_its_own_request_id_and_a_hit_no_rate_limit(edge):
    """The contract: every response carries X-Request-ID, the client's when valid, else a fresh
    one; a stored copy must not hand out the id (or the RateLimit count) of the request that
    filled it."""
    origin, varnish = edge
    counted = {"RateLimit": "limit=600, remaining=599, reset=60", "RateLimit-Policy": "600;w=60"}
    origin.answer("/a", Answer(headers={**public(), **counted, "X-Request-ID": "filled-it"}))

    miss = varnish.request("GET", "/a", headers={"X-Request-ID": "client-1"})
    own = varnish.request("GET", "/a", headers={"X-Request-ID": "client-2"})
    fresh = [varnish.request("GET", "/a") for _ in range(2)]
    invalid = varnish.request("GET", "/a", headers={"X-Request-ID": "bad id!"})

    assert miss.headers["X-Cache"] == "MISS"
    assert origin.last("/a").headers["x-request-id"] == "client-1"  # the origin logs the same id
    assert miss.headers["X-Request-ID"] == "client-1"
    assert miss.headers["RateLimit"] == counted["RateLimit"]  # the origin counted this one
    assert hit(own) and own.headers["X-Request-ID"] == "client-2"
    ids = [reply.headers["X-Request-ID"] for reply in (*fresh, invalid)]
    assert len(set(ids)) == 3 and all(i.startswith("edge-") for i in ids), ids
    for reply in (own, *fresh, invalid):
        assert "RateLimit" not in reply.headers and "RateLimit-Policy" not in reply.headers


def test_each_variant_the_origin_names_in_vary_is_kept_apart(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    accepts = ["application/hal+json", "application/prs.hal-forms+json", "text/html"]

    for accept in accepts:
        reply = varnish.request("GET", "/a", headers={"Accept": accept})
        assert reply.headers["X-Cache"] == "MISS", accept
        assert origin.last("/a").headers["accept"] == accept
    for accept in accepts:
        assert hit(varnish.request("GET", "/a", headers={"Accept": accept})), accept
    assert origin.fetches()["/a"] == len(accepts)


def test_the_scheme_and_host_the_origin_builds_links_from_each_have_their_copy(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    forwarded = [
        {},
        {"X-Forwarded-Proto": "https"},
        {"X-Forwarded-Host": "blog.example.org"},
        {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "blog.example.org"},
        {"Host": "localhost"},
    ]

    for headers in forwarded:
        assert varnish.request("GET", "/a", headers=headers).headers["X-Cache"] == "MISS", headers
    for headers in forwarded:
        assert hit(varnish.request("GET", "/a", headers=headers)), headers
    assert origin.fetches()["/a"] == len(forwarded)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Cache-Control": "private, no-cache", "xkey": "site"}, id="private"),
        pytest.param({"Cache-Control": "no-store"}, id="no-store"),
        pytest.param({}, id="no-cache-control"),
        pytest.param({**public(), "Set-Cookie": "sessionid=x"}, id="public-with-a-cookie"),
    ],
)
def test_an_answer_the_origin_does_not_mark_public_is_never_kept(edge, headers):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=headers))

    replies = [varnish.request("GET", "/a") for _ in range(3)]

    assert [r.headers["X-Cache"] for r in replies] == ["MISS"] * 3
    assert origin.fetches()["/a"] == 3


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param({"X-Access-Token": "t0ken"}, id="token"),
        pytest.param({"Authorization": "Bearer t0ken"}, id="authorization"),
        pytest.param({"Cookie": "sessionid=abc"}, id="session-cookie"),
        pytest.param({"Cookie": "theme=dark"}, id="any-cookie"),
    ],
)
def test_a_request_with_credentials_reaches_the_origin_and_fills_nothing(edge, credentials):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    assert varnish.request("GET", "/a").headers["X-Cache"] == "MISS"  # kept for everyone

    own = [varnish.request("GET", "/a", headers=credentials) for _ in range(2)]

    assert [r.headers["X-Cache"] for r in own] == ["MISS", "MISS"]
    assert origin.fetches()["/a"] == 3
    seen = origin.last("/a").headers
    assert all(seen[name.lower()] == value for name, value in credentials.items())
    # What they were answered was not kept for the others: the shared copy is still the first.
    origin.version = 2
    assert body(varnish.request("GET", "/a")) == b"/a v1"
    # Nor does a first request with credentials fill the cache.
    origin.answer("/b", Answer(headers=public()))
    varnish.request("GET", "/b", headers=credentials)
    assert varnish.request("GET", "/b").headers["X-Cache"] == "MISS"


@pytest.mark.parametrize(
    "path",
    [
        "/admin/blogs/blog/",
        "/admin",
        "/metrics",
        "/metrics?x=1",
        "/graphql",
        "/graphql?query=%7Bhello%7D",
        "/soap/calculator",
        "/livez",
        "/readyz",
        "/api/v1.2/blogs/1/webhooks",
        "/api/blogs/1/webhooks/3",
        "/api/v1.2/blogs/1/webhooks?pageSize=5",
    ],
)
def test_paths_that_are_never_shared_pass_even_when_marked_public(edge, path):
    origin, varnish = edge
    origin.answer(path, Answer(headers=public()))

    replies = [varnish.request("GET", path) for _ in range(2)]

    assert [r.headers["X-Cache"] for r in replies] == ["MISS", "MISS"]
    assert origin.fetches()[path] == 2


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_other_methods_reach_the_origin_and_leave_the_cached_copy(edge, method):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    varnish.request("GET", "/a")

    reply = varnish.request(method, "/a", body=b"{}", headers={"If-Match": '"old"'})

    assert reply.headers["X-Cache"] == "MISS"
    seen = origin.last("/a")
    assert seen.method == method
    assert seen.headers["if-match"] == '"old"'  # decided at the origin
    assert hit(varnish.request("GET", "/a"))


# --- conditional requests ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition",
    [
        pytest.param({"If-None-Match": '"v1-etag"'}, id="if-none-match"),
        pytest.param({"If-None-Match": 'W/"v1-etag"'}, id="if-none-match-weak"),
        pytest.param(
            {"If-Modified-Since": "Wed, 25 Nov 2026 10:00:00 GMT"}, id="if-modified-since"
        ),
    ],
)
def test_a_conditional_read_of_a_cached_copy_is_answered_304_by_the_edge(edge, condition):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    varnish.request("GET", "/a")

    reply = varnish.request("GET", "/a", headers=condition)
    changed = varnish.request("GET", "/a", headers={"If-None-Match": '"other"'})

    assert (reply.status, reply.headers["X-Cache"], reply.body) == (304, "HIT", b"")
    assert reply.headers["ETag"] == '"v1-etag"'
    assert (changed.status, body(changed)) == (200, b"/a v1")
    assert origin.fetches()["/a"] == 1


# --- purges ------------------------------------------------------------------------------------


def test_a_purge_from_loopback_soft_purges_the_copies_of_its_keys_only(edge):
    origin, varnish = edge
    origin.answer("/one", Answer(headers=public(keys="article:1 blog:1 site")))
    origin.answer("/two", Answer(headers=public(keys="article:2 blog:1 site")))
    origin.answer("/other", Answer(headers=public(keys="article:3 blog:2 site")))
    for path in ("/one", "/two", "/other"):
        varnish.request("GET", path)

    purged = varnish.purge("blog:1")

    assert purged.status == 200
    assert purged.headers["xkey-purged"] == "2"
    assert hit(varnish.request("GET", "/other"))
    assert varnish.request("GET", "/one").headers["X-Cache"] == "MISS"
    assert varnish.request("GET", "/two").headers["X-Cache"] == "MISS"
    # Several keys at once; a copy purged already is not counted again.
    assert varnish.purge("article:1", "article:3").headers["xkey-purged"] == "2"
    assert varnish.purge("article:1").headers["xkey-purged"] == "0"
    # `site`, every shareable answer's: everything.
    for path in ("/one", "/other"):
        varnish.request("GET", path)
    assert varnish.purge("site").headers["xkey-purged"] == "3"


def test_a_purge_relayed_by_a_proxy_or_without_keys_is_refused(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    varnish.request("GET", "/a")

    relayed = varnish.request(
        "PURGE", "/", headers={"xkey-softpurge": "site", "X-Forwarded-For": "203.0.113.7"}
    )
    keyless = varnish.request("PURGE", "/")

    assert relayed.status == 403
    assert keyless.status == 400
    assert relayed.headers["Content-Type"] == "application/problem+json"
    assert json.loads(relayed.body)["status"] == 403
    assert hit(varnish.request("GET", "/a"))
    assert "PURGE" not in {seen.method for seen in origin.seen}


def test_the_first_read_after_a_purge_shows_the_change_while_the_origin_answers(edge):
    """A soft-purged copy stays for errors only: the very next reader gets the new state, the
    fetch being conditional on the old copy."""
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    assert body(varnish.request("GET", "/a")) == b"/a v1"

    origin.version = 2
    varnish.purge("article:1")
    reply = varnish.request("GET", "/a")

    assert (reply.status, body(reply), reply.headers["X-Cache"]) == (200, b"/a v2", "MISS")
    fetch = origin.last("/a").headers
    assert fetch["if-none-match"] == '"v1-etag"'
    assert fetch["x-forwarded-for"] == "127.0.0.1"  # the restart added no second hop
    assert hit(varnish.request("GET", "/a"))


# --- stale copies ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(Answer(503, {"Cache-Control": "no-store"}, b"db down"), id="503"),
        pytest.param(Answer(500, {"Cache-Control": "no-store"}, b"oops"), id="500"),
        pytest.param(Answer(drop=True), id="connection-dropped"),
    ],
)
def test_a_purged_copy_is_served_when_the_origin_fails_to_answer_anew(edge, failure):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    varnish.request("GET", "/a")
    varnish.purge("article:1")

    origin.answer("/a", failure)
    replies = [varnish.request("GET", "/a") for _ in range(3)]

    assert [(r.status, body(r)) for r in replies] == [(200, b"/a v1")] * 3
    assert all(hit(r) for r in replies)
    # Once the origin answers again, the next read is fresh.
    origin.answer("/a", Answer(headers=public()))
    origin.version = 2
    fresh = until(lambda: body(varnish.request("GET", "/a")) == b"/a v2", timeout=5)
    assert fresh


def test_an_uncached_read_gets_the_origins_error_or_a_problem_when_nothing_answers(edge):
    origin, varnish = edge
    origin.answer("/down", Answer(503, {"Content-Type": "application/problem+json"}, b'{"x":1}'))
    origin.answer("/gone", Answer(drop=True))

    from_origin = varnish.request("GET", "/down")
    nothing = varnish.request("GET", "/gone")

    assert (from_origin.status, from_origin.body) == (503, b'{"x":1}')
    assert nothing.status == 503
    assert nothing.headers["Content-Type"] == "application/problem+json"
    assert int(nothing.headers["Retry-After"]) > 0
    problem = json.loads(nothing.body)
    assert problem["status"] == 503 and {"type", "title", "detail"} <= problem.keys()


def test_a_stale_copy_is_served_while_the_probe_finds_the_origin_sick(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public()))
    varnish.request("GET", "/a")
    origin.sick = True
    origin.wait_for_probes(3)

    origin.version = 2
    varnish.purge("article:1")
    stale = varnish.request("GET", "/a")

    # Delivered at once from the cache, and refreshed behind it (the origin still answers
    # content in this script, so the refresh succeeds).
    assert (stale.status, body(stale), stale.headers["X-Cache"]) == (200, b"/a v1", "HIT")
    assert until(lambda: body(varnish.request("GET", "/a")) == b"/a v2", timeout=5)


def test_within_stale_while_revalidate_the_stale_copy_answers_and_a_failed_refresh_keeps_it(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public(s_maxage=1, swr=30)))
    varnish.request("GET", "/a")
    time.sleep(1.5)  # past s-maxage, within stale-while-revalidate

    origin.answer("/a", Answer(503, {"Cache-Control": "no-store"}, b"db down"))
    replies = [varnish.request("GET", "/a") for _ in range(3)]

    assert [(r.status, body(r)) for r in replies] == [(200, b"/a v1")] * 3
    # Each was answered at once; the background refreshes reached the origin and failed.
    assert until(lambda: origin.fetches()["/a"] >= 2, timeout=5)

    origin.answer("/a", Answer(headers=public(s_maxage=1, swr=30)))
    origin.version = 2
    assert until(lambda: body(varnish.request("GET", "/a")) == b"/a v2", timeout=5)


def test_past_stale_while_revalidate_a_healthy_origin_is_asked_before_answering(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public(s_maxage=1, swr=1)))
    varnish.request("GET", "/a")
    time.sleep(2.5)  # past s-maxage and stale-while-revalidate, within stale-if-error

    origin.version = 2
    reply = varnish.request("GET", "/a")

    assert (reply.status, body(reply), reply.headers["X-Cache"]) == (200, b"/a v2", "MISS")


def test_past_stale_if_error_nothing_stale_is_served(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers=public(s_maxage=1, swr=0, sie=1)))
    varnish.request("GET", "/a")
    time.sleep(2.5)  # past s-maxage and stale-if-error

    origin.answer("/a", Answer(503, {"Cache-Control": "no-store"}, b"db down"))
    reply = varnish.request("GET", "/a")

    assert (reply.status, reply.body) == (503, b"db down")


# --- the client's address ----------------------------------------------------------------------


def test_the_origin_sees_the_connections_address_last_in_x_forwarded_for(edge):
    origin, varnish = edge
    origin.answer("/a", Answer(headers={"Cache-Control": "no-store"}))

    varnish.request("GET", "/a", headers={"X-Forwarded-For": "203.0.113.9"})
    spoofed = origin.last("/a").headers["x-forwarded-for"]
    connection = http.client.HTTPConnection(
        "127.0.0.1", varnish.port, timeout=10, source_address=("127.0.0.2", 0)
    )
    try:
        connection.request("GET", "/a")
        connection.getresponse().read()
    finally:
        connection.close()

    assert spoofed == "203.0.113.9, 127.0.0.1"
    assert origin.last("/a").headers["x-forwarded-for"] == "127.0.0.2"
