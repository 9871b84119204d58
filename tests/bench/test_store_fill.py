"""The benchmark's full store (bench/store_fill.py): live entries shaped like the service's own,
none a key the service under load uses, analysed after the fill, and gone again afterwards with
the service's own entries kept."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection

from bench.store_fill import StoreFill, samples
from core.store import DatabaseStore

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
        reason="the fill is one PostgreSQL statement (generate_series): set DATABASE_URL",
    ),
]


def article(number: int) -> dict:
    return {
        "id": number,
        "title": f"Article {number}",
        "content": f"The text of article {number}. " * 10,
        "_links": {"self": {"href": f"http://127.0.0.1/api/v1.2/blogs/1/articles/{number}"}},
    }


ARTICLE = article(7)
PAGE = {"totalArticles": 10, "_embedded": [article(number) for number in range(10)]}
# The service's store without Redis, whatever cache these tests run with.
cache = DatabaseStore("core_store", {})


def store_fill(entries: int) -> StoreFill:
    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT'] or 5432}"
        f"/{settings['NAME']}"
    )
    return StoreFill(url, entries, samples(ARTICLE, PAGE))


def rows() -> dict[str, tuple]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key, octet_length(value), number, expires FROM core_store")
        return {key: rest for key, *rest in cursor.fetchall()}


def estimated_rows() -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'core_store'")
        return cursor.fetchone()[0]


def test_the_fill_is_live_entries_of_the_stores_own_shapes_and_analysed():
    fill = store_fill(2000)

    fill.fill()

    entries = rows()
    assert len(entries) == 2000
    assert all(expires > time.time() + 3000 for _, _, expires in entries.values())
    kinds = {
        "rate limit": [k for k in entries if k.startswith(":1:ratelimit:v2:read:600/60s:")],
        "idempotency": [k for k in entries if k.startswith(":1:idempotency:0:")],
        "article": [k for k in entries if ":hal:article:1:" in k],
        "page": [k for k in entries if ":hal:articles:1:" in k],
    }
    assert {kind: len(keys) for kind, keys in kinds.items()} == {
        "rate limit": 1000,
        "idempotency": 200,
        "article": 700,
        "page": 100,
    }
    # Read through the service's own cache: the same key function, values it can decode.
    assert cache.get("ratelimit:v2:read:600/60s:2001:db8::1") == 2
    article_key = kinds["article"][0].removeprefix(":1:")
    tags, (etag, document) = cache.get(article_key)
    assert (len(tags), len(etag), document) == (2, 2, ARTICLE)
    assert cache.get(kinds["idempotency"][0].removeprefix(":1:"))["data"] == ARTICLE
    sizes = {kind: entries[keys[0]][0] for kind, keys in kinds.items()}
    assert sizes["rate limit"] is None
    assert sizes["page"] > 5 * sizes["article"]
    assert estimated_rows() >= 2000  # ANALYZE ran: the planner knows the table's size


def test_emptying_takes_the_fill_out_and_keeps_the_services_entries():
    cache.set("rep:gen:article:1", "tag", 600)
    cache.count_hits("ratelimit:v2:read:1000000/1s:127.0.0.1", 1, 1)
    cache.set("rep:http://127.0.0.1:8000/:hal:article:1:1", ("tags", "body"), 600)
    cache.add("idempotency:1:" + "a" * 64, {"state": "in-flight"}, 60)
    before = rows()
    fill = store_fill(1000)
    fill.fill()

    fill.empty()

    assert rows() == before
    assert fill.count() == (0, 4)
    assert estimated_rows() < 1000


def test_emptying_also_clears_what_an_interrupted_larger_run_left():
    store_fill(1500).fill()

    store_fill(10).empty()

    assert rows() == {}


def test_ensure_fills_and_empties_once():
    fill = store_fill(100)

    assert fill.ensure(filled=True).startswith("store filled with 100 entries")
    assert fill.ensure(filled=True) is None
    assert fill.count() == (100, 100)
    assert fill.ensure(filled=False).startswith("store emptied")
    assert fill.ensure(filled=False) is None
    assert fill.count() == (0, 0)
