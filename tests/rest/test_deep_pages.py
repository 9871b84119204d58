"""Every page of every order of a blog's articles, found by position from remembered boundaries
(articles.pages): the same articles as a plain ORDER BY ... OFFSET, after any write too; the
indexes that serve them (PostgreSQL plans); the time bound on reading them."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from articles import pages, services
from articles.models import Article
from articles.search import ORDERINGS
from blogs.models import Blog
from tests.rest.conftest import API, body, is_postgres
from tests.support.queries import ContentQueries, outside_savepoints

pytestmark = pytest.mark.django_db

# Each `sort` value (None: the default, by id) and the order a plain query gives it.
ORDERS: dict[str | None, tuple[str, ...]] = {None: ("id",), **ORDERINGS}
TITLES = ["Beta", "alpha", "Gamma", "Beta", "delta", "Alpha", "beta"]


@pytest.fixture(autouse=True)
def every_read_from_the_database(settings):
    """Pages built by every request (not answered from the representation cache), walking in
    strides of 2 articles, so that a small blog has many boundaries."""
    settings.REPRESENTATION_CACHE_SECONDS = 0
    settings.PAGE_BOUNDARY_STRIDE = 2


@pytest.fixture
def shelf(blog, other_blog):
    """41 live articles of `blog` with ties in title, creation and update times (two of every
    three share their times with another), 4 deleted ones, and articles of another blog
    between them."""
    now = timezone.now()
    written = []
    for n in range(45):
        written.append(services.article_create(blog=blog, title=TITLES[n % len(TITLES)]))
        if n % 5 == 0:
            services.article_create(blog=other_blog, title="Another blog's")
    for n, article in enumerate(written):
        Article.objects.filter(pk=article.pk).update(
            created_at=now - timedelta(minutes=(n * 7) % 15),
            updated_at=now - timedelta(minutes=(n * 11) % 13),
        )
    for gone in written[3::11]:
        services.article_delete(article=gone)
    return written


def expected_ids(blog, sort: str | None) -> list[int]:
    return list(
        Article.objects.live().in_blog(blog.pk).order_by(*ORDERS[sort]).values_list("id", flat=True)
    )


def page_ids(api, blog, sort: str | None, index: int, size: int) -> list[int]:
    order = f"&sort={sort}" if sort else ""
    response = api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize={size}{order}")
    assert response.status_code == 200, response.content[:300]
    document = body(response)
    assert document["totalArticles"] == len(expected_ids(blog, sort))
    return [article["id"] for article in document["_embedded"]]


def assert_every_page_is_the_offsets(api, blog, size: int, *, seed: int) -> None:
    """Every page of every order, read in a shuffled order (so that pages are found from
    boundaries on both sides), is what a plain ORDER BY ... OFFSET ... LIMIT gives."""
    visits = []
    for sort in ORDERS:
        pages = -(-len(expected_ids(blog, sort)) // size)
        visits += [(sort, index) for index in range(1, pages + 2)]  # and one past the end
    random.Random(seed).shuffle(visits)
    for sort, index in visits:
        offset = (index - 1) * size
        expected = expected_ids(blog, sort)[offset : offset + size]
        assert page_ids(api, blog, sort, index, size) == expected, (sort, index, size)


@pytest.mark.parametrize("size", [1, 3, 10])
def test_every_page_of_every_order_is_the_plain_offsets_page(api, blog, shelf, size):
    assert_every_page_is_the_offsets(api, blog, size, seed=size)


def test_ties_are_broken_by_the_id_in_the_direction_of_the_sort(api, blog, shelf):
    for sort in ("title", "-title", "created", "-created", "updated", "-updated"):
        ids = []
        for index in range(1, 16):
            ids += page_ids(api, blog, sort, index, 3)
        assert ids == expected_ids(blog, sort), sort
        assert len(set(ids)) == 41


def test_pages_stay_right_after_writes_move_every_position(api, blog, shelf, alice_token):
    assert_every_page_is_the_offsets(api, blog, 4, seed=1)  # boundaries remembered everywhere
    articles = f"{API}/blogs/{blog.pk}/articles"

    # Each write moves the positions of the boundaries found before it: a new article first
    # by title and last by creation, a deleted one, a replaced one that changes its place in
    # the title and update orders.
    created = api.write("POST", articles, {"title": "AAA first"}, token=alice_token)
    assert created.status_code == 201
    assert_every_page_is_the_offsets(api, blog, 4, seed=2)
    deleted = api.write("DELETE", f"{articles}/{shelf[20].pk}", token=alice_token)
    assert deleted.status_code == 204
    assert_every_page_is_the_offsets(api, blog, 4, seed=3)
    replaced = api.write("PUT", f"{articles}/{shelf[30].pk}", {"title": "zzz"}, token=alice_token)
    assert replaced.status_code == 200
    assert_every_page_is_the_offsets(api, blog, 4, seed=4)


def statements_for(api, url: str) -> list[str]:
    with ContentQueries(connection) as captured:
        assert api.get(url).status_code == 200
    return outside_savepoints(captured)


def test_a_deep_page_walks_once_then_carries_its_boundaries_over_the_writes(
    api, blog, shelf, alice_token, django_capture_on_commit_callbacks
):
    url = f"{API}/blogs/{blog.pk}/articles?sort=-title&pageIndex=5&pageSize=3"
    # The blog, then the page; on PostgreSQL the time bound before the page.
    page_only = 2 + is_postgres()

    walking = statements_for(api, url)
    again = statements_for(api, url)
    assert len(walking) > page_only + 1, walking  # the steps from an end, each remembered
    assert len(again) == page_only, again  # from a boundary: the page's statement alone

    # Committed writes remember how they moved each order: the next read carries the
    # boundaries over them (the titles compared by the database: one statement that reads
    # no table) instead of walking.
    articles = f"{API}/blogs/{blog.pk}/articles"
    with django_capture_on_commit_callbacks(execute=True):
        api.write("POST", articles, {"title": "Zed"}, token=alice_token)
        api.write("PUT", f"{articles}/{shelf[1].pk}", {"title": "Alpha"}, token=alice_token)
        api.write("DELETE", f"{articles}/{shelf[2].pk}", token=alice_token)
    carried = statements_for(api, url)
    assert len(carried) == page_only + 1, carried
    (titles,) = [sql for sql in carried if "VALUES" in sql]
    assert "articles_article" not in titles
    assert len(statements_for(api, url)) == page_only
    # The creation order moved only where an article came or went: no title to compare.
    created = f"{articles}?sort=created&pageIndex=6&pageSize=3"
    statements_for(api, created)
    with django_capture_on_commit_callbacks(execute=True):
        api.write("POST", articles, {"title": "Newest"}, token=alice_token)
    assert len(statements_for(api, created)) == page_only
    assert page_ids(api, blog, "created", 6, 3) == expected_ids(blog, "created")[15:18]

    # A change the read cannot account for (not remembered: here, an edit of the blog itself)
    # means a walk again.
    blog.refresh_from_db()
    blog.title = "Renamed"
    blog.save()
    after_the_edit = statements_for(api, url)
    assert len(after_the_edit) > page_only + 1, after_the_edit
    assert len(statements_for(api, url)) == page_only


def test_a_change_that_does_not_say_how_it_moved_an_order_makes_the_read_walk(
    api, blog, shelf, alice_token, django_capture_on_commit_callbacks
):
    """A change remembered without the order's column (by a version of the service without
    that order) cannot carry that order's boundaries: the read walks, and the page is right."""
    url = f"{API}/blogs/{blog.pk}/articles?sort=-title&pageIndex=5&pageSize=3"
    page_only = 2 + is_postgres()
    statements_for(api, url)
    with django_capture_on_commit_callbacks(execute=True):
        api.write("POST", f"{API}/blogs/{blog.pk}/articles", {"title": "Zed"}, token=alice_token)
    blog.refresh_from_db()
    key = pages._change_key(blog, blog.revision)
    change = cache.get(key)
    del change["title"]
    cache.set(key, change)

    walked = statements_for(api, url)

    assert len(walked) > page_only + 1, walked
    assert page_ids(api, blog, "-title", 5, 3) == expected_ids(blog, "-title")[12:15]


def test_a_write_to_a_blog_without_deep_pages_remembers_nothing(
    api, blog, shelf, alice_token, django_capture_on_commit_callbacks, settings
):
    """41 articles (42 with the new one) and a stride of 21: every page is within a stride of an
    end, no read looks for boundaries, and a write keeps no change for them; past 2 strides it
    does."""
    articles = f"{API}/blogs/{blog.pk}/articles"
    for stride, kept in ((21, False), (20, True)):
        settings.PAGE_BOUNDARY_STRIDE = stride
        with django_capture_on_commit_callbacks(execute=True):
            created = api.write("POST", articles, {"title": "Small"}, token=alice_token)
            assert created.status_code == 201
            api.write("DELETE", f"{articles}/{body(created)['id']}", token=alice_token)
        blog.refresh_from_db()
        assert blog.article_count == 41
        remembered = cache.get(pages._change_key(blog, blog.revision))
        assert (remembered is not None) is kept, stride


def test_boundaries_carried_over_random_writes_give_the_offsets_pages(
    api, blog, shelf, alice_token, django_capture_on_commit_callbacks
):
    """Rounds of random creates, replaces (of the title, of the content only) and deletes, some
    of them of the articles boundaries name, each round read in every order after it."""
    chance = random.Random(27)
    articles = f"{API}/blogs/{blog.pk}/articles"
    assert_every_page_is_the_offsets(api, blog, 3, seed=0)
    for round_number in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(6):
                live = list(Article.objects.live().in_blog(blog.pk).values_list("pk", flat=True))
                kind = chance.choice(["create", "title", "content", "delete"])
                title = chance.choice(TITLES)
                if kind == "create":
                    written = api.write("POST", articles, {"title": title}, token=alice_token)
                elif kind == "delete":
                    written = api.write(
                        "DELETE", f"{articles}/{chance.choice(live)}", token=alice_token
                    )
                else:
                    pk = chance.choice(live)
                    if kind == "content":
                        title = Article.objects.get(pk=pk).title
                    written = api.write(
                        "PUT",
                        f"{articles}/{pk}",
                        {"title": title, "content": kind},
                        token=alice_token,
                    )
                assert written.status_code in (200, 201, 204), written.content[:300]
        assert_every_page_is_the_offsets(api, blog, 3, seed=round_number + 1)


def test_with_the_cache_unreachable_every_page_is_still_right(api, blog, shelf, settings):
    """A real Redis client pointed at a closed port: no boundary is read or kept, every read
    walks, and the pages are the same."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }
    for sort in ("title", "-updated", None):
        for index in (7, 2, 10):
            offset = (index - 1) * 4
            expected = expected_ids(blog, sort)[offset : offset + 4]
            assert page_ids(api, blog, sort, index, 4) == expected, (sort, index)


def test_graphql_pages_are_the_same_pages(api, client, blog, shelf):
    document = """query ($id: ID!, $pageIndex: Int, $sort: String) {
      blog(id: $id) { articles(pageIndex: $pageIndex, pageSize: 4, sort: $sort) { items { id } } }
    }"""
    for sort in ("title", "-created", None):
        for index in (6, 2, 11):
            response = client.post(
                "/graphql",
                data=json.dumps(
                    {
                        "query": document,
                        "variables": {"id": blog.pk, "pageIndex": index, "sort": sort},
                    }
                ),
                content_type="application/json",
                headers={"Accept": "application/json"},
            )
            items = response.json()["data"]["blog"]["articles"]["items"]
            assert [int(item["id"]) for item in items] == page_ids(api, blog, sort, index, 4)


# --- PostgreSQL: the plans, and the time bound ----------------------------------------------------

PLAN_ARTICLES = 20_000
PLAN_STRIDE = 1_000
PAGE_SIZE = 10
# The index that serves each order; the id order may also be read from the primary key when
# the planner finds the blog's ids dense enough in it (no sort either way, as it checks).
INDEXES_OF = {
    "id": {"article_live_blog_id_idx", "articles_article_pkey"},
    "title": {"article_live_blog_title_idx"},
    "created_at": {"article_live_blog_created_idx"},
    "updated_at": {"article_live_blog_updated_idx"},
}


@pytest.fixture
def large_blog(blog, other_blog):
    """PLAN_ARTICLES live articles in `blog` with distinct times and titles, as many in another
    blog, and the statistics the planner would have of them."""
    now = timezone.now()
    Article.objects.bulk_create(
        Article(
            blog=owner,
            title=f"Note {(n * 7919) % PLAN_ARTICLES}",
            created_at=now - timedelta(seconds=n),
            updated_at=now - timedelta(seconds=(n * 13) % PLAN_ARTICLES),
        )
        for n in range(PLAN_ARTICLES)
        for owner in (blog, other_blog)  # the blogs' ids interleaved, as writes make them
    )
    # A bulk load sets the count itself, as seeding does.
    Blog.objects.filter(pk=blog.pk).update(article_count=PLAN_ARTICLES)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE articles_article")
    return blog


def plan_nodes(plan: dict) -> list[dict]:
    return [plan, *(node for child in plan.get("Plans", []) for node in plan_nodes(child))]


def explained(sql: str) -> list[dict]:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
        (document,) = cursor.fetchone()
    if isinstance(document, str):
        document = json.loads(document)
    return plan_nodes(document[0]["Plan"])


def page_statement(statements: list[str]) -> str:
    """The page's statement: the last of the request (the ids from the index, then the rows)."""
    (statement,) = [sql for sql in statements if "articles_article" in sql][-1:]
    return statement


@pytest.mark.postgres
def test_postgresql_reads_every_page_of_every_order_from_its_index_without_a_sort(
    api, large_blog, settings
):
    settings.PAGE_BOUNDARY_STRIDE = PLAN_STRIDE
    pages = PLAN_ARTICLES // PAGE_SIZE
    for sort, order in ORDERS.items():
        column = order[0].removeprefix("-")
        query = f"&sort={sort}" if sort else ""
        for name, index in (("first", 1), ("middle", pages // 2 + 3), ("last", pages)):
            url = f"{API}/blogs/{large_blog.pk}/articles?pageIndex={index}&pageSize={PAGE_SIZE}"
            statements_for(api, url + query)  # a middle page walks to a boundary first
            statements = statements_for(api, url + query)
            assert len(statements) == 3, (sort, name, statements)  # the blog, the bound, the page
            sql = page_statement(statements)
            if name == "middle":
                assert ">= (" in sql or "<= (" in sql, (sort, sql)  # a seek from a boundary
            nodes = explained(sql)
            where = f"sort={sort} {name} page"
            indexes = {node.get("Index Name") for node in nodes} - {None}
            assert indexes & INDEXES_OF[column], (where, indexes)
            for node in nodes:
                assert node["Node Type"] != "Seq Scan", (where, node)
                # Only the page's own rows are sorted (by the order, once fetched by id).
                if node["Node Type"] in ("Sort", "Incremental Sort"):
                    assert node["Actual Rows"] <= PAGE_SIZE, (where, node)
                # What the index walk reads: the skip from an end or a boundary, at most one
                # stride, and the page (through the primary key, the other blog's articles too:
                # its ids alternate with the blog's).
                read = node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
                blogs = 2 if node.get("Index Name") == "articles_article_pkey" else 1
                assert read <= blogs * (PLAN_STRIDE + 2 * PAGE_SIZE), (where, node)


@pytest.mark.postgres
def test_postgresql_answers_a_page_past_its_time_bound_with_a_503_naming_page_index(
    api, client, large_blog, settings
):
    settings.PAGE_BOUNDARY_STRIDE = 10
    settings.PAGE_TIMEOUT_MS = 1
    url = f"{API}/blogs/{large_blog.pk}/articles?sort=title&pageIndex=1000&pageSize=10"

    response = api.get(url)

    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "1"
    problem = body(response)
    assert problem["status"] == 503
    assert "pageIndex" in problem["detail"] and "retry" in problem["detail"]
    document = """query ($id: ID!) {
      blog(id: $id) { articles(pageIndex: 1000, sort: "title") { items { id } } }
    }"""
    graphql = client.post(
        "/graphql",
        data=json.dumps({"query": document, "variables": {"id": large_blog.pk}}),
        content_type="application/json",
        headers={"Accept": "application/json"},
    )
    (error,) = graphql.json()["errors"]
    assert "pageIndex" in error["message"]

    settings.PAGE_TIMEOUT_MS = 60_000
    assert (
        page_ids(api, large_blog, "title", 1000, 10)
        == expected_ids(large_blog, "title")[9990:10000]
    )
