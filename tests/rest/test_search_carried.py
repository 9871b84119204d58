"""A broad search's kept ranking carried over the writes (PostgreSQL; docs/decisions/search.md,
"Carried over the writes"): after any mix of writes, through HTTP, exactly the pages and the
number a fresh ranking gives, in every order and for a blog and every blog; ranked again only
when the changes are too many or too bulky to carry."""

from __future__ import annotations

import random
import re

import pytest
from django.db import connection
from django.utils import timezone

from articles import rankings, search, services, tasks
from articles.models import Article
from core import representations
from tests.rest.conftest import API, body
from tests.support.queries import ContentQueries

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

WORDS = ("harbour", "lantern", "quay", "tide", "harbour harbour")
ORDERS = ("relevance", "created", "-created", "updated", "-updated", "title", "-title")


def expected(blog_id: int | None, sort: str) -> tuple[int, list[str]]:
    """The number of `harbour` matches and their titles in `sort`'s order, ranked afresh."""
    articles = Article.objects.live()
    if blog_id is not None:
        articles = articles.filter(blog_id=blog_id)
    matches = search._matching(articles, "harbour").order_by(*search._order("harbour", sort))
    titles = list(matches.values_list("title", flat=True))
    return len(titles), titles


def served(api, blog_id: int | None, sort: str, pages: int, size: int) -> tuple[int, list[str]]:
    """The number and the titles of the first `pages` pages of `size`, through HTTP."""
    base = f"{API}/articles" if blog_id is None else f"{API}/blogs/{blog_id}/articles"
    total, titles = None, []
    for index in range(1, pages + 1):
        response = api.get(f"{base}?q=harbour&sort={sort}&pageSize={size}&pageIndex={index}")
        assert response.status_code == 200, response.content[:300]
        document = body(response)
        total = document["totalArticles"]
        titles += [article["title"] for article in document.get("_embedded", [])]
    return total, titles


def announced(pk: int, blog_id: int) -> None:
    """What the services do after a write (these tests write some with the ORM, as the admin or
    a script might): the generations of the article's blog and of every blog are renewed, and a
    ranking kept under them is carried over what the database recorded."""
    representations.article_changed(article_id=pk, blog_id=blog_id)


def rankings_run(queries: ContentQueries) -> int:
    return sum("OVER ()" in q["sql"] for q in queries)


@pytest.fixture
def kept_small(settings, monkeypatch):
    """Every search kept, and only the first 5 ids of each: the key of the last id kept bounds
    what a change may enter."""
    settings.SEARCH_CACHE_MIN_MATCHES = 2
    monkeypatch.setattr(rankings, "RANKING_KEPT", 5)


def test_carried_rankings_are_the_fresh_rankings_after_random_writes(
    api, blog, other_blog, kept_small
):
    rng = random.Random(27)
    blogs = [blog, other_blog]
    numbers = iter(range(1000))

    def title() -> str:
        return f"{rng.choice(WORDS)} {next(numbers):03}"

    for _ in range(24):
        services.article_create(blog=rng.choice(blogs), title=title(), content=rng.choice(WORDS))

    def compare() -> None:
        for sort in ORDERS:
            for blog_id in (blog.pk, other_blog.pk, None):
                total, titles = expected(blog_id, sort)
                assert served(api, blog_id, sort, pages=4, size=2) == (total, titles[:8]), (
                    sort,
                    blog_id,
                )

    compare()  # ranked: kept from here on
    for _ in range(6):
        live = dict(Article.objects.live().values_list("pk", "blog_id"))
        for _ in range(rng.randint(1, 6)):
            pk = rng.choice(list(live))
            kind = rng.choice(("create", "title", "content", "touch", "soft", "delete"))
            now = timezone.now()
            if kind == "create":
                services.article_create(
                    blog=rng.choice(blogs), title=title(), content=rng.choice(WORDS)
                )
            elif kind == "title":
                Article.objects.filter(pk=pk).update(title=title(), updated_at=now)
            elif kind == "content":
                Article.objects.filter(pk=pk).update(content=rng.choice(WORDS), updated_at=now)
            elif kind == "touch":
                Article.objects.filter(pk=pk).update(updated_at=now)
            elif kind == "soft":
                Article.objects.filter(pk=pk).update(deleted_at=now)
            else:
                Article.objects.filter(pk=pk).delete()
            if kind != "create":
                announced(pk, live[pk])
        with ContentQueries(connection) as queries:
            compare()
        # Carried, not ranked again (a page past the 5 ids kept reads its ids, unranked).
        assert rankings_run(queries) == 0


def test_too_many_changes_or_a_bulk_write_and_the_search_is_ranked_again(
    api, blog, other_blog, kept_small
):
    for n in range(6):
        services.article_create(blog=blog, title=f"Harbour {n}", content="x")
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour"

    def read() -> tuple[int, int]:
        with ContentQueries(connection) as queries:
            response = api.get(url)
        assert response.status_code == 200
        return body(response)["totalArticles"], rankings_run(queries)

    assert read() == (6, 1)
    assert read() == (6, 0)
    # As many single writes as are carried (in another blog too: they count, and change nothing).
    for n in range(rankings.CHANGES_CARRIED - 1):
        services.article_create(blog=other_blog, title=f"Harbour elsewhere {n}", content="x")
    services.article_create(blog=blog, title="Harbour 6", content="x")
    assert read() == (7, 0)
    # One more than that: ranked again.
    for n in range(rankings.CHANGES_CARRIED):
        services.article_create(blog=other_blog, title=f"Harbour again {n}", content="x")
    services.article_create(blog=blog, title="Harbour 7", content="x")
    assert read() == (8, 1)
    assert read() == (8, 0)
    # One statement of many rows (an import, a script): ranked again.
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Harbour bulk {n}", content="x")
        for n in range(rankings.CHANGES_CARRIED + 1)
    )
    representations.blog_changed(blog_id=blog.pk)
    assert read() == (8 + rankings.CHANGES_CARRIED + 1, 1)


def test_a_write_the_search_does_not_see_costs_one_statement(api, blog, other_blog, kept_small):
    for n in range(6):
        services.article_create(blog=blog, title=f"Harbour {n}", content="x")
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour&pageSize=5"  # within the ids kept
    first = body(api.get(url))

    def again() -> list[str]:
        """The statements that read articles or their changes."""
        with ContentQueries(connection) as queries:
            assert body(api.get(url)) == first
        return [
            q["sql"] for q in queries if '"articles_article"' in q["sql"] or "change" in q["sql"]
        ]

    # A write in another blog: the blog's ranking stands as it is; the page's rows.
    services.article_create(blog=other_blog, title="Harbour elsewhere", content="x")
    assert len(again()) == 1
    # One in the blog that the search does not see: the changes, then the page's rows; the ids
    # kept are not read again.
    services.article_create(blog=blog, title="Lantern", content="Nothing of the word.")
    touching = again()
    assert len(touching) == 2 and "articles_searchchange" in touching[0], "\n\n".join(touching)


def changes() -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT article_id, old_live, old_vector IS NOT NULL FROM articles_searchchange"
            " WHERE txid = pg_current_xact_id() ORDER BY id"
        )
        return cursor.fetchall()


def test_the_database_records_each_write_a_search_can_see_and_no_other(blog):
    article = services.article_create(blog=blog, title="Harbour", content="x")
    assert changes() == [(article.pk, False, False)]  # new: nothing before
    Article.objects.filter(pk=article.pk).update(locked=True)
    assert len(changes()) == 1  # not a column a search reads
    Article.objects.filter(pk=article.pk).update(content="y")
    Article.objects.filter(pk=article.pk).update(deleted_at=timezone.now())
    Article.objects.filter(pk=article.pk).delete()
    # Live with its vector, twice; then gone while soft-deleted (not live), vector and all.
    assert changes()[1:] == [
        (article.pk, True, True),
        (article.pk, True, True),
        (article.pk, False, True),
    ]


def test_beat_forgets_the_changes_every_ten_minutes(settings):
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["articles-search-changes"]
    assert entry == {"task": "articles.forget_search_changes", "schedule": 600.0}
    app.loader.import_default_modules()  # what a worker does: each app's tasks module
    assert "articles.forget_search_changes" in app.tasks


def test_changes_older_than_kept_are_forgotten(blog):
    article = services.article_create(blog=blog, title="Harbour", content="x")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE articles_searchchange SET changed_at = clock_timestamp() - make_interval("
            "secs => %s) WHERE article_id = %s",
            [rankings.CHANGES_KEPT_SECONDS + 1, article.pk],
        )
    Article.objects.filter(pk=article.pk).update(title="Harbour again")
    assert tasks.forget_search_changes() >= 1
    assert changes() == [(article.pk, True, True)]


def test_an_article_changed_several_times_counts_as_it_was_when_the_ranking_saw_it(
    api, blog, kept_small
):
    articles = [
        services.article_create(blog=blog, title=f"Harbour {n}", content="x") for n in range(6)
    ]
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour&pageSize=5"
    assert body(api.get(url))["totalArticles"] == 6
    # Out of the search, then changed again; in and out again; written and gone.
    Article.objects.filter(pk=articles[0].pk).update(title="Lantern")
    Article.objects.filter(pk=articles[0].pk).update(title="Lantern again")
    Article.objects.filter(pk=articles[1].pk).update(title="Lantern")
    Article.objects.filter(pk=articles[1].pk).update(title="Harbour back")
    gone = services.article_create(blog=blog, title="Harbour brief", content="x")
    Article.objects.filter(pk=gone.pk).delete()
    announced(gone.pk, blog.pk)

    with ContentQueries(connection) as queries:
        document = body(api.get(url))
    assert rankings_run(queries) == 0
    assert document["totalArticles"] == 5
    assert [a["title"] for a in document["_embedded"]] == expected(blog.pk, "relevance")[1][:5]


def test_postgresql_reads_the_changes_by_index_only(api, blog, kept_small):
    """At the size of a service that has been written to (40,000 articles, 20,000 older changes),
    the statement that reads the changes a ranking has not seen reads them by their index and the
    changed articles by primary key, and no more."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO articles_article (blog_id, title, content, created_at, updated_at,"
            " version, locked, slug) SELECT %s, 'Note ' || n, 'harbour ' || n, now(), now(), 1,"
            " false, 'note-' || n FROM generate_series(1, 40000) AS n",
            [blog.pk],
        )
        cursor.execute(
            "INSERT INTO articles_searchchange (txid, article_id, blog_id)"
            " SELECT '3'::xid8, n, %s FROM generate_series(1, 20000) AS n",
            [blog.pk],
        )
        cursor.execute("ANALYZE articles_article")
        cursor.execute("ANALYZE articles_searchchange")
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour&pageSize=5"
    assert api.get(url).status_code == 200  # ranked
    services.article_create(blog=blog, title="Harbour lights", content="x")
    with ContentQueries(connection) as queries:
        assert api.get(url).status_code == 200  # carried
    (changes,) = [q["sql"] for q in queries if "articles_searchchange" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE) " + changes)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "using articles_searchchange_txid" in plan, plan
    assert "Seq Scan" not in plan, plan
    # The articles: by primary key only (no bitmap of the search's index, no other index).
    reads = [line for line in plan.splitlines() if re.search(r" on articles_article\b", line)]
    assert reads and all("articles_article_pkey" in line for line in reads), plan
