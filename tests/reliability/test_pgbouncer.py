"""gunicorn behind pgbouncer in transaction mode (DATABASE_POOLER=pgbouncer): every surface works
while a handful of server connections carry the transactions of many client connections
(docs/production.md, "Connection pooling (pgbouncer)")."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from tests.support.load import API, is_problem, write_headers
from tests.support.postgres import PGBOUNCER, PSQL, Pgbouncer
from tests.support.servers import GunicornServer, database_url

pytestmark = [pytest.mark.postgres, pytest.mark.servers]

POOL_SIZE = 2
CLIENTS = 8
GRAPHQL = '{ blog(id: "%d") { title } article(blogId: "%d", id: "%d") { title } }'
SOAP_ADD = (
    '<?xml version="1.0"?><e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope">'
    '<e:Body><AddValues xmlns="http://example.org/calculator"><FirstValue>2</FirstValue>'
    "<SecondValue>3</SecondValue></AddValues></e:Body></e:Envelope>"
)


@pytest.fixture
def bouncer() -> Iterator[Pgbouncer]:
    """pgbouncer (transaction mode, POOL_SIZE server connections) before the test database."""
    if not PGBOUNCER.exists() or not os.path.exists(PSQL):
        pytest.skip("needs pgbouncer and psql (.ci/install-pgbouncer installs pgbouncer)")
    settings_dict = connection.settings_dict
    proxy = Pgbouncer(
        settings_dict.get("HOST") or "127.0.0.1",
        int(settings_dict.get("PORT") or 5432),
        pool_size=POOL_SIZE,
    )
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def smoke(server: GunicornServer, blog_id: int, token: str, number: int) -> list[str]:
    """The REST, GraphQL and SOAP smoke path of one client; the steps that went wrong."""
    failures: list[str] = []

    def expect(step: str, reply, status: int):
        if reply.status != status:
            failures.append(f"{step}: {reply.status} {reply.body[:200]!r}")
        return reply

    writer = write_headers(token)
    articles = f"{API}/blogs/{blog_id}/articles"
    created = expect(
        "create",
        server.request("POST", articles, body={"title": f"Pooled {number}"}, headers=writer),
        201,
    )
    if created.status != 201:
        return failures
    path = f"{articles}/{created.json()['id']}"
    read = expect("read", server.request("GET", path), 200)
    etag = read.headers["ETag"]
    expect("304", server.request("GET", path, headers={"If-None-Match": etag}), 304)
    replaced = expect(
        "replace",
        server.request(
            "PUT",
            path,
            body={"title": f"Pooled {number}, replaced"},
            headers={**writer, "If-Match": etag},
        ),
        200,
    )
    stale = server.request(
        "PUT", path, body={"title": "Lost?"}, headers={**writer, "If-Match": etag}
    )
    if stale.status != 412 or not is_problem(stale):
        failures.append(f"stale replace: {stale.status}")
    expect(
        "comment",
        server.request("POST", f"{path}/comments", body={"text": "Pooled"}, headers=writer),
        201,
    )
    for index in (1, 2):
        expect(f"page {index}", server.request("GET", f"{articles}?pageIndex={index}"), 200)
    graphql = expect(
        "graphql",
        server.request(
            "POST",
            "/graphql",
            body={"query": GRAPHQL % (blog_id, blog_id, created.json()["id"])},
        ),
        200,
    )
    if graphql.status == 200:
        data = graphql.json()
        if data.get("errors") or data["data"]["article"]["title"] != f"Pooled {number}, replaced":
            failures.append(f"graphql: {data}")
    soap = expect(
        "soap",
        server.request(
            "POST",
            "/soap/calculator",
            body=SOAP_ADD,
            headers={"Content-Type": "application/soap+xml; charset=utf-8"},
        ),
        200,
    )
    if b">5<" not in soap.body:
        failures.append(f"soap: {soap.body[:200]!r}")
    expect(
        "delete",
        server.request(
            "DELETE", path, headers={**writer, "If-Match": replaced.headers.get("ETag", "")}
        ),
        204,
    )
    expect("gone", server.request("GET", path), 410)
    return failures


def test_every_surface_works_through_pgbouncer_in_transaction_mode(
    start_server, bouncer, blog, alice, token_for
):
    server = start_server(
        DATABASE_URL=database_url(connection.settings_dict, host="127.0.0.1", port=bouncer.port),
        DATABASE_POOLER="pgbouncer",
    )
    token = token_for(alice)
    assert smoke(server, blog.pk, token, 0) == []

    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(
            pool.map(lambda n: smoke(server, blog.pk, token, n), range(1, 3 * CLIENTS + 1))
        )
    assert [failure for result in results for failure in result] == []

    database = connection.settings_dict["NAME"]
    # gunicorn's threads keep their own connections (DB_CONN_MAX_AGE): more clients than servers.
    clients = [row for row in bouncer.show("CLIENTS") if row[2] == database]
    servers = [row for row in bouncer.show("SERVERS") if row[2] == database]
    assert len(clients) > POOL_SIZE, clients
    assert 1 <= len(servers) <= POOL_SIZE, servers
