"""What is measured: one Workload per (server, request); the harness runs each with wrk."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

REST = "/api/v1.2/blogs"
SOAP_PATH = "/soap/calculator"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
HAL_ACCEPT = {"Accept": "application/hal+json"}

GRAPHQL_HELLO = "{ hello }"
GRAPHQL_PERSON = '{ person(id: "1") { name friends { name friends { name friends { name } } } } }'
GRAPHQL_FILM = '{ film(id: "6") { title planets { name residents { name } } } }'


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body)


Check = Callable[[Response], str | None]  # None when the answer is right, else what is wrong


@dataclass
class Workload:
    key: str  # unique, e.g. "service.get_article"
    label: str
    server: str
    method: str
    path: str
    check: Check
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    script: str = "static"  # bench/wrk/<script>.lua
    env: dict[str, str] = field(default_factory=dict)
    expected_status: int = 200
    group: str = "main"
    store_entries: int = 0  # filler entries the database store must hold while it runs
    connections: int | None = None  # wrk connections, when not the run's (--connections)
    error: str | None = None  # set when the probe fails; the workload is then not run
    rounds: list[dict] = field(default_factory=list)


def expect_status(expected: int, then: Check | None = None) -> Check:
    def check(response: Response) -> str | None:
        if response.status != expected:
            return f"HTTP {response.status} (expected {expected})"
        return then(response) if then else None

    return check


def json_check(predicate: Callable[[dict], bool], what: str) -> Check:
    def check(response: Response) -> str | None:
        try:
            document = response.json()
        except ValueError:
            return "the body is not JSON"
        return None if predicate(document) else f"the body is not {what}"

    return check


def graphql_check(predicate: Callable[[dict], bool]) -> Check:
    def check(response: Response) -> str | None:
        try:
            document = response.json()
        except ValueError:
            return "the body is not JSON"
        if document.get("errors"):
            return f"GraphQL errors: {document['errors'][0].get('message', '?')[:80]}"
        return None if predicate(document.get("data") or {}) else "unexpected data"

    return check


def soap_envelope(namespace: str, first: int, second: int) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<soap:Envelope xmlns:soap="{SOAP12}"><soap:Body>'
        f'<AddValues xmlns="{namespace}"><FirstValue>{first}</FirstValue>'
        f"<SecondValue>{second}</SecondValue></AddValues>"
        "</soap:Body></soap:Envelope>"
    ).encode()


def soap_result(expected: int) -> Check:
    def check(response: Response) -> str | None:
        text = response.body.decode("utf-8", "replace")
        if "AddValuesResponse" not in text or f">{expected}</" not in text:
            return f"no AddValuesResponse with Result {expected}"
        return None

    return check


def article_get(server: str, article_id: int) -> Workload:
    return Workload(
        key=f"{server}.get_article",
        label="GET article",
        server=server,
        method="GET",
        path=f"{REST}/1/articles/{article_id}",
        headers=HAL_ACCEPT,
        check=expect_status(
            200, json_check(lambda d: d.get("id") == article_id, f"article {article_id}")
        ),
    )


def article_get_with_token(server: str, article_id: int, token: str) -> Workload:
    """GET article as its writer: with X-Access-Token, which the edge passes to the origin."""
    workload = article_get(server, article_id)
    workload.key += "_token"
    workload.label += " with X-Access-Token"
    workload.headers = {**workload.headers, "X-Access-Token": token}
    return workload


def page_get(
    server: str, size: int, index: int = 1, *, group: str = "main", total: int, name: str = ""
) -> Workload:
    def right_page(document: dict) -> bool:
        embedded = document.get("_embedded")
        expected = max(0, min(size, total - (index - 1) * size))
        return (
            isinstance(embedded, list)
            and len(embedded) == expected
            and document.get("totalArticles") == total
        )

    label = f"GET page size {size}" if group == "main" else f"GET page {index:,} (size {size})"
    return Workload(
        key=f"{server}.{name or f'page_{index}_{size}'}",
        label=label,
        server=server,
        method="GET",
        path=f"{REST}/1/articles?pageIndex={index}&pageSize={size}",
        headers=HAL_ACCEPT,
        group=group,
        check=expect_status(200, json_check(right_page, f"page {index} of {total} articles")),
    )


# The orders of `sort` the scale rows read (issue 27), and the default order.
SCALE_SORTS = ("title", "-created")
EVERY_SORT = ("", "title", "-title", "created", "-created", "updated", "-updated")


def sorted_page_name(sort: str, where: str) -> str:
    """The key's name of a sorted page's row, e.g. `sorted_desc_created_middle_10`."""
    return f"sorted_{sort.replace('-', 'desc_')}_{where}_10"


def sorted_page_get(server: str, sort: str, index: int, *, total: int, where: str) -> Workload:
    """Page `index` (size 10) of the scale blog in the order of `sort`, read with one connection:
    its p50 is the time a reader waits for it, not a queue's."""
    workload = page_get(server, 10, index, group="scale", total=total, name="")
    workload.key = f"{server}.{sorted_page_name(sort, where)}"
    workload.label = f"GET sort={sort} {where} page ({index:,}, size 10), 1 connection"
    workload.path += f"&sort={sort}"
    workload.connections = 1
    return workload


def random_pages_get(server: str, total: int) -> Workload:
    """Pages of the scale blog at random, of every order and anywhere in the blog, with the
    run's connections: no request may wait long, whatever page it asks."""
    pages = -(-total // 10)
    workload = page_get(server, 10, 1, group="scale", total=total, name="random_pages_10")
    workload.label = f"GET a random page of a random order (1 to {pages:,}, size 10)"
    workload.script = "random_pages"
    workload.env = {
        "BENCH_SORTS": ",".join(EVERY_SORT),
        "BENCH_PAGES": str(pages),
        "BENCH_PAGE_PREFIX": f"{REST}/1/articles",
    }
    return workload


def article_put(server: str, article_ids: list[int], token: str) -> Workload:
    def has_etag(response: Response) -> str | None:
        return None if response.headers.get("etag") else "no ETag on the answer"

    return Workload(
        key=f"{server}.put_article",
        label="PUT article (If-Match)",
        server=server,
        method="PUT",
        path=f"{REST}/1/articles/{article_ids[0]}",
        headers={
            **HAL_ACCEPT,
            "Content-Type": "application/json",
            "X-Access-Token": token,
            "If-Match": "*",  # the probe only; under load each PUT sends the current ETag
        },
        body=b'{"title": "Benchmark PUT 0", "content": "Replaced by the benchmark."}',
        script="put_if_match",
        env={
            "BENCH_PUT_PREFIX": f"{REST}/1/articles/",
            "BENCH_PUT_IDS": ",".join(map(str, article_ids)),
            "BENCH_TOKEN": token,
        },
        check=expect_status(200, has_etag),
    )


FULL_STORE = "_full_store"  # the key suffix of a workload run on a full database store


def with_full_store(workload: Workload, entries: int) -> Workload:
    """The same workload, run while the database store holds `entries` other entries."""
    workload.key += FULL_STORE
    workload.label += f", store of {entries:,} entries"
    workload.group = "store"
    workload.store_entries = entries
    return workload


def article_post(server: str, token: str) -> Workload:
    return Workload(
        key=f"{server}.post_article",
        label="POST article",
        server=server,
        method="POST",
        path=f"{REST}/2/articles",  # blog 2, so that blog 1 keeps exactly N articles
        headers={**HAL_ACCEPT, "Content-Type": "application/json", "X-Access-Token": token},
        body=b'{"title": "Posted by the benchmark", "content": "A new article."}',
        expected_status=201,
        check=expect_status(201, json_check(lambda d: isinstance(d.get("id"), int), "an article")),
    )


COMMENT_TEXT = "A comment from the benchmark."
MISSING_ID = 2**31 - 1  # an article id no seeding reaches


def comment_post(server: str, article_id: int, token: str) -> Workload:
    """A comment on one article of blog 1 (its own: nothing else reads or writes it), every
    connection on the same article, as a burst of comments on a post is."""

    def a_comment(document: dict) -> bool:
        return isinstance(document.get("id"), int) and document.get("text") == COMMENT_TEXT

    return Workload(
        key=f"{server}.post_comment",
        label="POST comment",
        server=server,
        method="POST",
        path=f"{REST}/1/articles/{article_id}/comments",
        headers={**HAL_ACCEPT, "Content-Type": "application/json", "X-Access-Token": token},
        body=json.dumps({"text": COMMENT_TEXT}).encode(),
        expected_status=201,
        check=expect_status(201, json_check(a_comment, "the comment")),
    )


def comment_post_missing(server: str, token: str) -> Workload:
    """A comment on an article that does not exist: every step a comment's write takes before
    and around the write (the middleware, DRF's dispatch, the token, the rate limit, the
    article's lookup, an answer), without the write. Set against the peer's whole comment."""
    return replace(
        comment_post(server, MISSING_ID, token),
        key=f"{server}.comment_on_no_article",
        label="POST comment, no such article (404)",
        expected_status=404,
        check=expect_status(404),
    )


def article_put_missing(server: str, token: str) -> Workload:
    """A PUT of an article that does not exist, its body and `If-Match: *` sent: what a PUT goes
    through besides its write, as comment_post_missing for a comment. Set against the peer's
    whole PUT."""
    return replace(
        article_put(server, [MISSING_ID], token),
        key=f"{server}.put_on_no_article",
        label="PUT article, no such article (404)",
        script="static",
        env={},
        expected_status=404,
        check=expect_status(404),
    )


def graphql(server: str, name: str, label: str, query: str, predicate) -> Workload:
    return Workload(
        key=f"{server}.graphql_{name}",
        label=label,
        server=server,
        method="POST",
        path="/graphql",
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        body=json.dumps({"query": query}).encode(),
        check=expect_status(200, graphql_check(predicate)),
    )


def graphql_workloads(server: str) -> list[Workload]:
    def three_levels(data: dict) -> bool:
        person = data.get("person") or {}
        return any(friend.get("friends") for friend in person.get("friends") or [])

    def film_with_residents(data: dict) -> bool:
        planets = (data.get("film") or {}).get("planets") or []
        return any(planet.get("residents") for planet in planets)

    return [
        graphql(server, "person", "GraphQL person, 3 levels", GRAPHQL_PERSON, three_levels),
        graphql(
            server, "film", "GraphQL film(6)+planets+residents", GRAPHQL_FILM, film_with_residents
        ),
        graphql(server, "hello", "GraphQL hello", GRAPHQL_HELLO, lambda d: bool(d.get("hello"))),
    ]


def soap_workloads(server: str, namespace: str) -> list[Workload]:
    return [
        Workload(
            key=f"{server}.soap_post",
            label="SOAP AddValues POST",
            server=server,
            method="POST",
            path=SOAP_PATH,
            headers={
                "Content-Type": (
                    f'application/soap+xml; charset=utf-8; action="{namespace}/AddValuesMessage"'
                ),
                "Accept": "application/soap+xml",
            },
            body=soap_envelope(namespace, 2, 3),
            check=expect_status(200, soap_result(5)),
        ),
        Workload(
            key=f"{server}.soap_get",
            label="SOAP AddValues GET",
            server=server,
            method="GET",
            path=f"{SOAP_PATH}?FirstValue=2&SecondValue=3",
            headers={"Accept": "application/soap+xml"},
            check=expect_status(200, soap_result(5)),
        ),
    ]


def total_articles(server: str, total: int, path: str, label: str) -> Workload:
    return Workload(
        key=f"{server}.total_articles",
        label=label,
        server=server,
        method="GET",
        path=path,
        headers=HAL_ACCEPT,
        group="scale",
        check=expect_status(
            200, json_check(lambda d: d.get("totalArticles") == total, f"{total} articles")
        ),
    )


# Two topics of the seeded articles (articles.seeding.TOPICS): each is in about 3 articles in
# 100, both together in 593 of the first 1,000,000 (1 in 1,700), as two words of a real search
# would be; not words every article has (the seeded text is otherwise the same everywhere).
SEARCH_WORDS = "harbour lantern"
# Broad searches (issue 27): one of those topics alone (30,364 of the first 1,000,000), and
# either of them (59,963).
SEARCH_WORD = "harbour"
SEARCH_EITHER = "harbour or lantern"


def search_get(
    server: str,
    total: int,
    words: str = SEARCH_WORDS,
    *,
    name: str = "search_10",
    across_blogs: bool = False,
) -> Workload:
    """A search of the scale blog (or, `across_blogs`, of every blog), a page of 10, most
    relevant first."""

    def right_page(document: dict) -> bool:
        found = document.get("totalArticles")
        embedded = document.get("_embedded")
        return (
            isinstance(found, int)
            and 0 < found < total
            and isinstance(embedded, list)
            and len(embedded) == min(10, found)
        )

    collection = "/api/v1.2/articles" if across_blogs else f"{REST}/1/articles"
    return Workload(
        key=f"{server}.{name}",
        label=f'GET search "{words}"{" across blogs" if across_blogs else ""} (size 10)',
        server=server,
        method="GET",
        path=f"{collection}?q={words.replace(' ', '%20')}&pageSize=10",
        headers=HAL_ACCEPT,
        group="scale",
        check=expect_status(200, json_check(right_page, "a page of some, not all, articles")),
    )


def plain_get(server: str, name: str, label: str, path: str, media_type: str) -> Workload:
    def right_type(response: Response) -> str | None:
        content_type = response.headers.get("content-type", "")
        return None if content_type.startswith(media_type) else f"Content-Type {content_type}"

    return Workload(
        key=f"{server}.{name}",
        label=label,
        server=server,
        method="GET",
        path=path,
        group="serving",
        check=expect_status(200, right_type),
    )


def serving_workloads(server: str) -> list[Workload]:
    """What exists before any surface: the health check, the admin, a whitenoise static file."""
    return [
        plain_get(server, "healthz", "GET /healthz", "/healthz", "application/json"),
        plain_get(server, "admin_login", "GET /admin/login/", "/admin/login/", "text/html"),
        plain_get(
            server,
            "static",
            "GET static file (whitenoise)",
            "/static/admin/css/base.css",
            "text/css",
        ),
    ]
