"""Arbitrary values in every query parameter of every page never make it a server error.

Not opt-in: bounded (PAGE_EXAMPLES per page), it runs with the suite, so on SQLite and again on
PostgreSQL in CI, whose parsers and integer limits are what the values are aimed at (issue 24:
a huge pageIndex on a search, a run of `-` in `q`, bytes that are not UTF-8). A 400 must be a
problem naming one of the parameters sent; no request may log an error.
"""

from __future__ import annotations

import json
import logging
import os
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from articles import services as article_services
from articles.search import SORTS
from webhooks import services as webhook_services

pytestmark = pytest.mark.django_db

API = "/api/v1.2"
# FUZZ_EXAMPLES (.ci/fuzz) explores more when set.
PAGE_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
PARAMETERS = ["q", "sort", "pageIndex", "pageSize"]
# What each page reads: its paging, and on the pages of articles `q` and `sort` too; the others
# get those as well, and must ignore them.
PAGES = [
    "/blogs",
    "/blogs/{blog}/articles",
    "/articles",
    "/blogs/{blog}/articles/{article}/comments",
    "/blogs/{blog}/articles/{article}/revisions",
    "/blogs/{blog}/webhooks",
    "/blogs/{blog}/webhooks/{webhook}/deliveries",
]

# Values aimed at the databases' and parsers' edges, beside arbitrary text and bytes.
EDGES = [
    "",
    " ",
    "0",
    "-1",
    "1",
    "100",
    "101",
    "+1",
    " 1",
    "1.0",
    "1e3",
    "0x10",
    "\u0663",  # an Arabic-Indic three: int() would take it
    "9" * 18,
    "9" * 19,
    "9" * 5000,
    str(2**63 - 1),
    str(2**63),
    "relevance",
    *SORTS,
    "-" * 33 + "word",
    "- " * 40 + "word",
    "word " + "-!" * 40,
    '"' + "-" * 40 + '"',
    "a or -b or --c",
    "\x00",
    "x" * 201,
]


def encoded(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogatepass")


VALUES = st.one_of(
    st.sampled_from(EDGES).map(encoded),
    st.integers(min_value=-(2**70), max_value=2**70).map(lambda n: str(n).encode()),
    st.text(max_size=220).map(encoded),
    st.from_regex(r'[-!&|()<":*\' a-z]{0,80}', fullmatch=True).map(encoded),
    st.binary(max_size=40),  # percent-encoded as they are: often not UTF-8
)
QUERIES = st.lists(st.tuples(st.sampled_from(PARAMETERS), VALUES), max_size=6)


def query_string(pairs: list[tuple[str, bytes]]) -> str:
    return "&".join(f"{name}={quote_from_bytes(value, safe='')}" for name, value in pairs)


@pytest.fixture
def urls(blog, alice):
    article = article_services.article_create(blog=blog, title="Garden", content="tomatoes")
    article_services.comment_create(article=article, author=alice, text="first!")
    article_services.article_replace(article=article, title="Garden notes", content="basil")
    webhook, _ = webhook_services.subscription_create(
        blog=blog, url="http://127.0.0.1:9/hooks", events=["*"], created_by=alice
    )
    ids = {"blog": blog.pk, "article": article.pk, "webhook": webhook.pk}
    return [API + page.format(**ids) for page in PAGES]


@pytest.mark.parametrize("index", range(len(PAGES)), ids=PAGES)
@settings(max_examples=PAGE_EXAMPLES)
@given(pairs=QUERIES)
@example(pairs=[("q", b"demo"), ("pageIndex", b"9" * 18), ("pageSize", b"100")])
@example(pairs=[("q", b"-" * 33 + b"word")])
@example(pairs=[("q", b"\xff\xfe")])
def test_no_query_string_makes_a_page_a_server_error(
    client, urls, alice, token_for, caplog, index, pairs
):
    caplog.clear()
    token = token_for(alice)

    response = client.get(f"{urls[index]}?{query_string(pairs)}", headers={"X-Access-Token": token})

    assert response.status_code < 500, (pairs, response.content[:300])
    assert response.status_code in {200, 400}, (pairs, response.status_code)
    if response.status_code == 400:
        assert response["Content-Type"] == "application/problem+json"
        # /articles requires q: its 400 may name a q that was not sent.
        may_name = {name for name, _ in pairs} | ({"q"} if PAGES[index] == "/articles" else set())
        named = set(json.loads(response.content).get("errors", {}))
        assert named and named <= may_name, (pairs, response.content)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR], pairs


GRAPHQL_PAGE = """query ($id: ID!, $pageIndex: Int, $pageSize: Int, $q: String, $sort: String) {
  blog(id: $id) { articles(pageIndex: $pageIndex, pageSize: $pageSize, q: $q, sort: $sort) {
    count pageIndex items { id } } }
}"""
TEXTS = st.one_of(st.none(), st.sampled_from(EDGES), st.text(max_size=220))
INTS = st.one_of(
    st.none(), st.integers(min_value=-(2**31), max_value=2**31 - 1), st.sampled_from([2**31, 2**63])
)


@settings(max_examples=PAGE_EXAMPLES)
@given(q=TEXTS, sort=TEXTS, page_index=INTS, page_size=INTS)
@example(q="-" * 33 + "word", sort=None, page_index=None, page_size=None)
@example(q="demo", sort=None, page_index=2**31 - 1, page_size=100)
def test_no_arguments_make_graphql_articles_an_internal_error(
    client, urls, blog, caplog, q, sort, page_index, page_size
):
    caplog.clear()
    variables = {
        "id": blog.pk,
        "q": q,
        "sort": sort,
        "pageIndex": page_index,
        "pageSize": page_size,
    }

    response = client.post(
        "/graphql",
        data=json.dumps({"query": GRAPHQL_PAGE, "variables": variables}),
        content_type="application/json",
    )

    assert response.status_code < 500, (variables, response.content[:300])
    for error in json.loads(response.content).get("errors", []):
        assert "Internal server error" not in error["message"], (variables, error)
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR], variables
