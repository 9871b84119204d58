"""What is measured: one Workload per (server, request); the harness runs each with wrk."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

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


def search_get(server: str, total: int) -> Workload:
    """A two-word search of the scale blog, a page of 10, most relevant first."""

    def right_page(document: dict) -> bool:
        found = document.get("totalArticles")
        embedded = document.get("_embedded")
        return (
            isinstance(found, int)
            and 0 < found < total
            and isinstance(embedded, list)
            and len(embedded) == min(10, found)
        )

    return Workload(
        key=f"{server}.search_10",
        label=f'GET search "{SEARCH_WORDS}" (size 10)',
        server=server,
        method="GET",
        path=f"{REST}/1/articles?q={SEARCH_WORDS.replace(' ', '%20')}&pageSize=10",
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
