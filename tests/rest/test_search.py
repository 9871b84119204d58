"""Search (`q`) and ordering (`sort`) of a blog's articles and of every blog's, through HTTP."""

from __future__ import annotations

import logging
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from articles import services
from articles.models import Article
from tests.rest.conftest import API, body, is_postgres
from tests.support.queries import ContentQueries

pytestmark = pytest.mark.django_db

ORIGIN = "http://testserver"


def write(blog, title: str, content: str | None = None) -> Article:
    return services.article_create(blog=blog, title=title, content=content)


def titles(response) -> list[str]:
    assert response.status_code == 200, response.content[:300]
    return [article["title"] for article in body(response)["_embedded"]]


def statements(queries: ContentQueries) -> list[str]:
    """The statements of a request; not the savepoints around the search's time budget, which
    exist because the test runs inside a transaction (a request outside one has none)."""
    return [q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]


def query_of(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


@pytest.fixture
def garden(blog):
    """Articles about gardens and kitchens, written in this order."""
    return [
        write(blog, "Tomatoes in the garden", "Red fruit grows on the vine."),
        write(blog, "Kitchen notes", "Soup from garden tomatoes and basil."),
        write(blog, "Winter garden", "Frost covers the beds; nothing grows."),
        write(blog, "A quiet kitchen", "Bread rises slowly."),
    ]


# --- q on a blog's articles ---------------------------------------------------------------------


def test_q_searches_titles_and_contents_and_answers_the_page_shape(api, blog, garden):
    response = api.get(f"{API}/blogs/{blog.pk}/articles?q=tomatoes")

    document = body(response)
    assert sorted(titles(response)) == ["Kitchen notes", "Tomatoes in the garden"]
    assert document["totalArticles"] == 2
    assert document["totalPages"] == 1
    assert (document["pageIndex"], document["pageSize"]) == (1, 10)
    assert {item["href"] for item in document["_links"]["item"]} == {
        f"{ORIGIN}{API}/blogs/{blog.pk}/articles/{garden[0].pk}",
        f"{ORIGIN}{API}/blogs/{blog.pk}/articles/{garden[1].pk}",
    }


def test_a_match_in_the_title_ranks_above_one_in_the_content(api, blog, garden):
    # Written second, the title match must still come first: relevance is the default with q.
    write(blog, "Basil", "A herb.")

    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=basil")) == [
        "Basil",
        "Kitchen notes",
    ]


def test_the_search_is_case_insensitive_and_needs_every_word(api, blog, garden):
    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=GARDEN%20Frost")) == ["Winter garden"]


def test_a_search_without_matches_is_an_empty_page(api, blog, garden):
    document = body(api.get(f"{API}/blogs/{blog.pk}/articles?q=zucchini"))

    assert document["_embedded"] == []
    assert (document["totalArticles"], document["totalPages"]) == (0, 0)


def test_deleted_articles_and_other_blogs_are_not_found(api, blog, other_blog, garden):
    services.article_delete(article=garden[0])
    write(other_blog, "Tomatoes elsewhere")

    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=tomatoes")) == ["Kitchen notes"]


def test_every_page_link_keeps_q_and_sort(api, blog):
    for n in range(7):
        write(blog, f"Garden {n}", "Soil")

    document = body(
        api.get(f"{API}/blogs/{blog.pk}/articles?q=soil&sort=-title&pageSize=2&pageIndex=2")
    )

    assert document["totalArticles"] == 7
    for rel in ("firstPage", "previousPage", "self", "nextPage", "lastPage"):
        for links in (document["_link"], document["_links"]):
            query = query_of(links[rel]["href"])
            assert query["q"] == ["soil"], rel
            assert query["sort"] == ["-title"], rel
            assert query["pageSize"] == ["2"], rel
    assert query_of(document["_links"]["lastPage"]["href"])["pageIndex"] == ["4"]
    assert titles(api.get(document["_links"]["nextPage"]["href"])) == ["Garden 2", "Garden 1"]


def test_q_is_escaped_in_the_page_links(api, blog):
    write(blog, "Fish & chips", "cod")

    document = body(api.get(f"{API}/blogs/{blog.pk}/articles", {"q": "fish & chips"}))

    href = document["_links"]["self"]["href"]
    assert "q=fish%20%26%20chips" in href
    assert query_of(href)["q"] == ["fish & chips"]


def test_the_blog_and_the_root_declare_q_and_sort_in_their_templates(api, blog):
    blog_links = body(api.get(f"{API}/blogs/{blog.pk}"))["_links"]
    root_links = body(api.get(f"{API}/"))["_links"]

    assert blog_links["doc:articles"]["href"].endswith("/articles{?pageIndex,pageSize,q,sort,tag}")
    assert root_links["doc:search"] == {
        "href": f"{ORIGIN}{API}/articles{{?pageIndex,pageSize,q,sort,tag}}",
        "templated": True,
    }


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("", "q must not be empty."),
        ("   ", "q must not be empty."),
        ("x" * 201, "q must be at most 200 characters."),
        ("a\x00b", "q must not contain NUL characters."),
    ],
)
def test_an_empty_blank_over_long_or_nul_q_is_a_400_problem(api, blog, query, detail):
    response = api.get(f"{API}/blogs/{blog.pk}/articles", {"q": query})

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["errors"] == {"q": [detail]}


def test_a_q_of_200_characters_is_accepted(api, blog):
    assert api.get(f"{API}/blogs/{blog.pk}/articles", {"q": "x" * 200}).status_code == 200


def test_a_search_costs_the_same_queries_whatever_the_page_size(api, blog):
    for n in range(30):
        write(blog, f"Note {n}", "common words")

    for size in (5, 30):
        with ContentQueries(connection) as queries:
            response = api.get(f"{API}/blogs/{blog.pk}/articles?q=common&pageSize={size}")
        assert len(titles(response)) == size
        # The blog; on SQLite the page with the number of matches (COUNT(*) OVER ()); on
        # PostgreSQL the search's time budget, the ranking (the number and the first ids) and
        # the page's rows by id.
        assert len(statements(queries)) == (4 if is_postgres() else 2), statements(queries)
    # Past the end no row carries the number: SQLite counts it apart; PostgreSQL has it from the
    # ranking and reads no row.
    with ContentQueries(connection) as queries:
        document = body(api.get(f"{API}/blogs/{blog.pk}/articles?q=common&pageIndex=9"))
    assert (document["_embedded"], document["totalArticles"], document["totalPages"]) == ([], 30, 3)
    assert len(statements(queries)) == 3, statements(queries)


def test_a_search_page_is_304_until_the_blog_changes(api, blog, garden):
    url = f"{API}/blogs/{blog.pk}/articles?q=garden"
    etag = api.get(url)["ETag"]

    assert api.get(url, headers={"If-None-Match": etag}).status_code == 304
    assert api.get(f"{url}&sort=title", headers={"If-None-Match": etag}).status_code == 200
    assert (
        api.get(f"{API}/blogs/{blog.pk}/articles", headers={"If-None-Match": etag}).status_code
        == 200
    )
    write(blog, "Another garden")
    assert api.get(url, headers={"If-None-Match": etag}).status_code == 200


def test_a_search_sees_a_write_at_once(api, blog, garden, settings):
    url = f"{API}/blogs/{blog.pk}/articles?q=orchard"
    assert titles(api.get(url)) == []

    write(blog, "The orchard")

    assert titles(api.get(url)) == ["The orchard"]


# --- what a hostile client sends (issue 24) ------------------------------------------------------

# A pageIndex of 18 digits, the most the API parses: its OFFSET would not fit a 64-bit integer.
FAR_PAGE = "pageIndex=999999999999999999&pageSize=100"
# One NOT more than PostgreSQL's tsquery parser can stack ("tsquery stack too small").
NEGATIONS = "-" * 33


def faults(caplog) -> list[str]:
    """What the request logged at ERROR or above (a 500 logs its traceback there)."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
def test_a_search_page_past_every_table_is_an_empty_page_with_the_total(
    api, blog, garden, caplog, path
):
    url = f"{API}{path.format(blog=blog.pk)}?q=garden&{FAR_PAGE}"

    response = api.get(url)

    document = body(response)
    assert response.status_code == 200
    assert document["_embedded"] == []
    assert (document["pageIndex"], document["totalArticles"], document["totalPages"]) == (
        999999999999999999,
        3,
        1,
    )
    assert query_of(document["_links"]["previousPage"]["href"])["pageIndex"] == ["1"]
    assert faults(caplog) == []


@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
def test_the_last_page_a_64_bit_offset_reaches_is_searched(api, blog, garden, path):
    # pageIndex * pageSize == 2**63 - 1 (7 x 73 x 127 x 337 x 92737 x 649657): the OFFSET still
    # fits, the database is asked and finds nothing there.
    size = 73
    index = (2**63 - 1) // size

    document = body(
        api.get(f"{API}{path.format(blog=blog.pk)}?q=garden&pageIndex={index}&pageSize={size}")
    )

    assert (document["_embedded"], document["totalArticles"]) == ([], 3)


@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
@pytest.mark.parametrize("separator", ["", " ", "!", " ( "])
def test_a_long_run_of_minus_signs_in_q_is_a_page_not_a_fault(
    api, blog, garden, caplog, path, separator
):
    q = separator.join(NEGATIONS) + "tomatoes"

    response = api.get(f"{API}{path.format(blog=blog.pk)}", {"q": q})

    assert response.status_code == 200, response.content[:300]
    assert query_of(body(response)["_links"]["self"]["href"])["q"] == [q]
    assert faults(caplog) == []


@pytest.mark.postgres
def test_postgresql_reads_a_long_run_of_minus_signs_as_the_one_not_it_amounts_to(api, blog, garden):
    url = f"{API}/blogs/{blog.pk}/articles?sort=title&q=garden%20"

    # Two NOTs cancel: an even run is no NOT at all, an odd one is one.
    assert titles(api.get(url + "-" * 40 + "tomatoes")) == [
        "Kitchen notes",
        "Tomatoes in the garden",
    ]
    assert titles(api.get(url + "-" * 41 + "tomatoes")) == ["Winter garden"]
    assert titles(api.get(url + "- " * 41 + "tomatoes")) == ["Winter garden"]
    # The NOTs of several words, each run short, are PostgreSQL's as before.
    assert titles(api.get(url + "-tomatoes%20--frost")) == ["Winter garden"]


@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
def test_a_q_whose_bytes_are_not_utf8_is_a_400_problem_naming_q(api, blog, caplog, path):
    response = api.get(f"{API}{path.format(blog=blog.pk)}?q=%ff%fe")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["errors"] == {"q": ["q must be UTF-8 text."]}
    assert faults(caplog) == []


def test_a_replacement_character_sent_as_utf8_is_searched_for(api, blog):
    write(blog, "Mojibake \ufffd explained")

    # U+FFFD itself, percent-encoded as its UTF-8 bytes (PostgreSQL's parser keeps no lexeme of
    # it, so the other word finds the article there); and beside another parameter whose bytes
    # are not UTF-8: the refusal is for q alone.
    for query in ("q=mojibake%20%EF%BF%BD", "x=%ff&q=mojibake%20%EF%BF%BD"):
        response = api.get(f"{API}/blogs/{blog.pk}/articles?{query}")
        assert titles(response) == ["Mojibake \ufffd explained"]
        assert query_of(body(response)["_links"]["self"]["href"])["q"] == ["mojibake \ufffd"]


# --- sort ---------------------------------------------------------------------------------------


def test_without_sort_the_order_stays_oldest_first(api, blog, garden):
    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles")) == [a.title for a in garden]


def test_sort_by_title_both_ways(api, blog, garden):
    url = f"{API}/blogs/{blog.pk}/articles?sort="
    by_title = sorted(a.title for a in garden)

    assert titles(api.get(url + "title")) == by_title
    assert titles(api.get(url + "-title")) == by_title[::-1]


def test_sort_by_created_and_updated_times(api, blog, garden):
    now = timezone.now()
    # Created in another order than the ids; then updated in yet another.
    for article, days in zip(garden, (3, 1, 4, 2), strict=True):
        Article.objects.filter(pk=article.pk).update(
            created_at=now - timedelta(days=days), updated_at=now - timedelta(days=5 - days)
        )
    url = f"{API}/blogs/{blog.pk}/articles?sort="
    by_created = [garden[i].title for i in (2, 0, 3, 1)]

    assert titles(api.get(url + "created")) == by_created
    assert titles(api.get(url + "-created")) == by_created[::-1]
    assert titles(api.get(url + "updated")) == by_created[::-1]
    assert titles(api.get(url + "-updated")) == by_created


def test_a_replace_moves_an_article_to_the_end_of_updated(api, blog, garden, alice_token):
    api.write(
        "PUT",
        f"{API}/blogs/{blog.pk}/articles/{garden[0].pk}",
        {"title": "Zinnias"},
        token=alice_token,
    )

    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?sort=-updated"))[0] == "Zinnias"


def test_ties_are_broken_by_id_so_pages_never_overlap(api, blog):
    for n in range(9):
        write(blog, "Same title", f"n{n}")
    url = f"{API}/blogs/{blog.pk}/articles?pageSize=4&sort="

    for sort, ascending in (("title", True), ("-title", False), ("created", True)):
        ids = []
        for index in (1, 2, 3):
            ids += [a["id"] for a in body(api.get(f"{url}{sort}&pageIndex={index}"))["_embedded"]]
        assert ids == sorted(ids, reverse=not ascending), sort
        assert len(set(ids)) == 9


def test_sort_and_q_together(api, blog, garden):
    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=garden&sort=-created")) == [
        "Winter garden",
        "Kitchen notes",
        "Tomatoes in the garden",
    ]


def test_an_unknown_sort_is_a_400_listing_the_allowed_values(api, blog):
    response = api.get(f"{API}/blogs/{blog.pk}/articles?sort=price")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    (message,) = body(response)["errors"]["sort"]
    for allowed in ("created", "-created", "updated", "-updated", "title", "-title", "relevance"):
        assert allowed in message


def test_relevance_without_q_is_a_400(api, blog):
    response = api.get(f"{API}/blogs/{blog.pk}/articles?sort=relevance")

    assert response.status_code == 400
    assert body(response)["errors"] == {"sort": ["sort=relevance needs q."]}


def test_a_sorted_page_is_cached_apart_from_the_default_one_and_renewed_by_writes(
    api, blog, garden, settings
):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    url = f"{API}/blogs/{blog.pk}/articles"
    assert titles(api.get(url + "?sort=-title"))[0] == "Winter garden"
    assert titles(api.get(url))[0] == "Tomatoes in the garden"

    with ContentQueries(connection) as queries:
        assert titles(api.get(url + "?sort=-title"))[0] == "Winter garden"
    assert len(queries) == 0  # from the representation cache

    write(blog, "Zebra crossing")
    assert titles(api.get(url + "?sort=-title"))[0] == "Zebra crossing"


# --- /articles?q= across blogs ------------------------------------------------------------------


def test_the_search_across_blogs_finds_every_blogs_articles_archived_ones_too(
    api, blog, other_blog, archived_blog
):
    write(blog, "Apples of Alice")
    write(other_blog, "Apples of Bob")
    write(other_blog, "Pears")
    # Written before the blog was archived (the API refuses writes now).
    Article.objects.create(blog=archived_blog, title="Apples of old")

    response = api.get(f"{API}/articles?q=apples&sort=title")

    document = body(response)
    assert titles(response) == ["Apples of Alice", "Apples of Bob", "Apples of old"]
    assert document["totalArticles"] == 3
    blogs = [article["_links"]["doc:blog"]["title"] for article in document["_embedded"]]
    assert blogs == ["Alice's blog", "Bob's blog", "Old blog"]
    assert query_of(document["_links"]["self"]["href"]) == {
        "pageIndex": ["1"],
        "pageSize": ["10"],
        "q": ["apples"],
        "sort": ["title"],
    }


def test_the_search_across_blogs_needs_q(api, db):
    response = api.get(f"{API}/articles")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["errors"] == {"q": ["q is required: the text to search for."]}


def test_the_search_across_blogs_is_304_until_any_article_changes(api, blog, other_blog):
    write(blog, "Apples")
    url = f"{API}/articles?q=apples"
    etag = api.get(url)["ETag"]
    assert api.get(url, headers={"If-None-Match": etag}).status_code == 304

    write(other_blog, "Apples too")

    response = api.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert body(response)["totalArticles"] == 2


def test_the_search_across_blogs_costs_the_same_few_queries_for_many_blogs(api, alice):
    from blogs.models import Blog

    for n in range(12):
        write(Blog.objects.create(title=f"Blog {n}"), f"Apples {n}")

    with ContentQueries(connection) as queries:
        response = api.get(f"{API}/articles?q=apples&pageSize=12")
    assert len(titles(response)) == 12
    # The blogs' state (ETag); the page with its blogs joined and the number of matches; on
    # PostgreSQL the time budget, the ranking, then the page's rows with their blogs joined.
    assert len(statements(queries)) == (4 if is_postgres() else 2), statements(queries)


# --- PostgreSQL: full-text search ---------------------------------------------------------------


@pytest.mark.postgres
def test_postgresql_reads_web_search_syntax(api, blog):
    write(blog, "Grow tomatoes", "In pots on the balcony.")
    write(blog, "Tomatoes grow", "Slowly, in the shade.")
    write(blog, "Cucumbers", "On the balcony too.")
    url = f"{API}/blogs/{blog.pk}/articles?sort=title&q="

    assert titles(api.get(url + '"grow tomatoes"')) == ["Grow tomatoes"]
    assert titles(api.get(url + "tomatoes -balcony")) == ["Tomatoes grow"]
    assert titles(api.get(url + "cucumbers or shade")) == ["Cucumbers", "Tomatoes grow"]
    # English stemming: "growing" finds "grow".
    assert titles(api.get(url + "growing")) == ["Grow tomatoes", "Tomatoes grow"]


@pytest.mark.postgres
def test_postgresql_ranks_by_how_well_an_article_matches(api, blog):
    write(blog, "Notes", "Once: rain.")
    write(blog, "Rain", "Rain, rain and more rain.")
    write(blog, "Weather", "Rain and rain.")

    assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=rain")) == [
        "Rain",
        "Weather",
        "Notes",
    ]


@pytest.mark.postgres
def test_postgresql_serves_a_search_from_the_gin_index(api, blog):
    words = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "peach"]
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Note {n}", content=f"{words[n % 8]} {words[(n * 3) % 7]} text")
        for n in range(10_000)
    )
    write(blog, "Quince", "A rare one.")
    with connection.cursor() as cursor:
        # What autovacuum would do in time: the rows leave the index's pending list, and the
        # planner learns how many there are.
        cursor.execute("SELECT gin_clean_pending_list('article_search_idx')")
        cursor.execute("ANALYZE articles_article")

    with ContentQueries(connection) as queries:
        assert titles(api.get(f"{API}/blogs/{blog.pk}/articles?q=quince")) == ["Quince"]
        assert titles(api.get(f"{API}/articles?q=quince")) == ["Quince"]
    searches = [q["sql"] for q in queries if "websearch_to_tsquery" in q["sql"]]
    assert len(searches) == 2  # a page (with its count) of the blog, then of every blog
    with connection.cursor() as cursor:
        for sql in searches:
            cursor.execute("EXPLAIN " + sql)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "article_search_idx" in plan, plan


@pytest.mark.postgres
def test_postgresql_refuses_a_search_too_broad_to_rank_in_its_time_budget(api, blog, settings):
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Note {n}", content="common words everywhere")
        for n in range(20_000)
    )
    settings.SEARCH_TIMEOUT_MS = 1

    response = api.get(f"{API}/blogs/{blog.pk}/articles?q=common%20words")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert body(response)["errors"] == {
        "q": ["The search matches too many articles to rank in time; add words to narrow it."]
    }
    settings.SEARCH_TIMEOUT_MS = 60_000
    assert body(api.get(f"{API}/articles?q=common%20words"))["totalArticles"] == 20_000


def test_the_search_column_and_index_exist_on_postgresql_only():
    with connection.cursor() as cursor:
        columns = {
            c.name
            for c in connection.introspection.get_table_description(cursor, "articles_article")
        }
        indexes = set(connection.introspection.get_constraints(cursor, "articles_article"))
    assert ("search_vector" in columns) == is_postgres()
    assert ("article_search_idx" in indexes) == is_postgres()


# --- broad searches: ranked once per state of the articles (issue 27) --------------------------


RANKED = "OVER ()"  # the ranking's count of every match: COUNT(...) OVER ()


def ranked(sql: list[str]) -> list[str]:
    """The statements that ranked (counted every match)."""
    return [s for s in sql if RANKED in s]


def searched(api, url: str) -> tuple[dict, list[str]]:
    """The page at `url` and the statements it ran, bar savepoints."""
    with ContentQueries(connection) as queries:
        response = api.get(url)
    assert response.status_code == 200, response.content[:300]
    return body(response), statements(queries)


@pytest.mark.postgres
def test_postgresql_ranks_a_broad_search_once_until_its_articles_change(api, blog, settings):
    settings.SEARCH_CACHE_MIN_MATCHES = 5
    for n in range(12):
        write(blog, f"Harbour note {n}" if n % 3 == 0 else f"Note {n}", "The harbour at dusk.")
    write(blog, "Lantern", "Only one.")
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour&pageSize=4"

    first, sql = searched(api, url)
    assert len(ranked(sql)) == 1
    again, sql = searched(api, url)
    # The blog, the time budget, the page's rows by id: no search, no count.
    assert len(sql) == 3 and not ranked(sql), sql
    assert again == first
    assert first["totalArticles"] == 12
    # Title matches first (weight A), then the rest, ties by id: from the ranking kept.
    assert [a["title"] for a in first["_embedded"]] == [f"Harbour note {n}" for n in (0, 3, 6, 9)]
    later, sql = searched(api, url + "&pageIndex=3")
    assert not ranked(sql), sql
    assert [a["title"] for a in later["_embedded"]] == ["Note 7", "Note 8", "Note 10", "Note 11"]

    # Another order is another ranking; a search with fewer matches is not kept.
    assert len(rankings_of(api, url + "&sort=-title")) == 1
    assert len(rankings_of(api, url + "&sort=-title")) == 0
    narrow = f"{API}/blogs/{blog.pk}/articles?q=lantern"
    assert len(rankings_of(api, narrow)) == len(rankings_of(api, narrow)) == 1

    # A write to the blog's articles: carried over, not ranked again, and the page shows it.
    write(blog, "Harbour lights", "New.")
    fresh, sql = searched(api, url)
    assert not ranked(sql), sql
    assert fresh["totalArticles"] == 13
    second, sql = searched(api, url + "&pageIndex=2")
    assert not ranked(sql), sql
    # A title match with no other, below the four whose content matches too.
    assert second["_embedded"][0]["title"] == "Harbour lights"
    for page, carried in ((url, fresh), (url + "&pageIndex=2", second)):
        cache.clear()
        ranked_again, sql = searched(api, page)
        assert len(ranked(sql)) == 1 and ranked_again == carried


def rankings_of(api, url: str) -> list[str]:
    return ranked(searched(api, url)[1])


@pytest.fixture
def bob_token(bob, token_for) -> str:
    return token_for(bob)


def found(api, url: str) -> tuple[int, list[str]]:
    document = body(api.get(url))
    return document["totalArticles"], [a["title"] for a in document["_embedded"]]


def test_the_number_of_matches_stays_exact_through_creates_replaces_and_deletes(
    api, blog, alice_token, settings
):
    settings.SEARCH_CACHE_MIN_MATCHES = 2  # kept from the first search on (PostgreSQL)
    kept = [write(blog, f"Note {n}", f"A harbour, {n}.") for n in range(3)]
    elsewhere = write(blog, "Elsewhere", "Inland.")
    articles = f"{API}/blogs/{blog.pk}/articles"

    def searches() -> list[tuple[int, list[str]]]:
        """The blog's search and the search across blogs (the only blog), each asked twice."""
        return [
            found(api, url)
            for url in (f"{articles}?q=harbour&sort=title", f"{API}/articles?q=harbour&sort=title")
            for _ in range(2)
        ]

    assert searches() == [(3, ["Note 0", "Note 1", "Note 2"])] * 4

    created = api.write("POST", articles, {"title": "Harbour", "content": "x"}, token=alice_token)
    assert created.status_code == 201
    assert searches() == [(4, ["Harbour", "Note 0", "Note 1", "Note 2"])] * 4

    # A replace that takes the word out, and one that puts it in.
    for article, content, expected in (
        (kept[1], "Inland now.", (3, ["Harbour", "Note 0", "Note 2"])),
        (elsewhere, "By the harbour.", (4, ["Elsewhere", "Harbour", "Note 0", "Note 2"])),
    ):
        response = api.write(
            "PUT",
            f"{articles}/{article.pk}",
            {"title": article.title, "content": content},
            token=alice_token,
        )
        assert response.status_code == 200
        assert searches() == [expected] * 4

    assert api.write("DELETE", f"{articles}/{kept[0].pk}", token=alice_token).status_code == 204
    assert searches() == [(3, ["Elsewhere", "Harbour", "Note 2"])] * 4


def test_the_search_across_blogs_counts_every_blog_and_sees_each_write(
    api, blog, other_blog, archived_blog, bob_token, settings
):
    settings.SEARCH_CACHE_MIN_MATCHES = 2
    write(blog, "Harbour of Alice")
    write(other_blog, "Harbour of Bob")
    Article.objects.create(blog=archived_blog, title="Old harbour")
    url = f"{API}/articles?q=harbour&sort=title"
    every = ["Harbour of Alice", "Harbour of Bob", "Old harbour"]
    assert found(api, url) == (3, every)
    assert found(api, url) == (3, every)

    # A write in another blog than the one searched before.
    response = api.write(
        "POST", f"{API}/blogs/{other_blog.pk}/articles", {"title": "Harbour again"}, token=bob_token
    )
    assert response.status_code == 201
    assert found(api, url) == (4, ["Harbour again", *every])
    assert found(api, f"{API}/blogs/{other_blog.pk}/articles?q=harbour&sort=title") == (
        2,
        ["Harbour again", "Harbour of Bob"],
    )

    # A blog deleted whole (what the admin does) takes its articles out of the search.
    other_blog.delete()
    assert found(api, url) == (2, ["Harbour of Alice", "Old harbour"])


def test_a_page_deeper_than_the_ranking_keeps_is_still_in_order(api, blog, settings):
    from articles import rankings

    settings.SEARCH_CACHE_MIN_MATCHES = 2
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Note {n:04}", content="harbour") for n in range(1005)
    )
    url = f"{API}/blogs/{blog.pk}/articles?q=harbour&sort=-title&pageSize=100&pageIndex="

    assert rankings.RANKING_KEPT == 1000
    assert found(api, url + "10")[1][-1] == "Note 0005"  # the last id kept
    total, deep = found(api, url + "11")
    assert (total, deep) == (
        1005,
        ["Note 0004", "Note 0003", "Note 0002", "Note 0001", "Note 0000"],
    )
    assert found(api, url + "12") == (1005, [])


@pytest.mark.postgres
@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
def test_postgresql_runs_every_statement_of_a_search_in_its_time_budget(api, blog, settings, path):
    settings.SEARCH_CACHE_MIN_MATCHES = 2
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Note {n}", content="harbour") for n in range(1005)
    )
    url = f"{API}{path.format(blog=blog.pk)}?q=harbour&pageSize=100&pageIndex="

    # Ranked (the ranking, the rows); from the ranking kept (the rows); past the ids kept (their
    # ids, the rows); past the end, however far (nothing); after a write, carried over it (the
    # changes, the ids kept re-read in order, the rows).
    pages = (("1", 2), ("1", 1), ("10", 1), ("11", 2), ("12", 0), ("9" * 18, 0), ("written", 3))
    for page, expected in pages:
        if page == "written":
            write(blog, "Harbour lights")
            page = "1"
        with ContentQueries(connection) as queries:
            assert api.get(url + page).status_code == 200
        budget = False
        searching = []
        for sql in (q["sql"] for q in queries):
            if sql.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):
                budget = False  # a budget is a transaction (here a savepoint) of its own
            elif "set_config('statement_timeout'" in sql:
                budget = True
            elif '"articles_article"' in sql:
                assert budget, (page, sql)
                searching.append(sql)
        assert len(searching) == expected, (page, searching)


@pytest.fixture
def broad(blog):
    """40,000 articles, a word in 4,000 of them (in the title of 1,000), ready as autovacuum would
    leave them: their words out of the index's pending list, the planner informed. One in ten:
    with one in five the planner found a sequential scan as cheap, now and then."""
    Article.objects.bulk_create(
        Article(
            blog=blog,
            title=f"Harbour {n}" if n % 40 == 0 else f"Note {n}",
            content=f"The {'harbour' if n % 10 == 0 else 'meadow'}, the {n}th lantern by the lake.",
        )
        for n in range(40_000)
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT gin_clean_pending_list('article_search_idx')")
        cursor.execute("ANALYZE articles_article")
    return blog


def plan_of(sql: str, budget: str | None = None) -> str:
    """EXPLAIN (ANALYZE, BUFFERS) of `sql`, under the search's settings (its budget statement, as
    the request ran it) when given."""
    with transaction.atomic(), connection.cursor() as cursor:
        if budget:
            cursor.execute(budget)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.postgres
@pytest.mark.parametrize("path", ["/blogs/{blog}/articles", "/articles"])
def test_postgresql_ranks_a_broad_search_with_a_top_n_sort_in_memory(api, broad, path):
    with ContentQueries(connection) as queries:
        document = body(api.get(f"{API}{path.format(blog=broad.pk)}?q=harbour&pageSize=20"))
    assert document["totalArticles"] == 4_000
    assert [a["title"] for a in document["_embedded"][:2]] == ["Harbour 0", "Harbour 40"]
    sql = statements(queries)
    budget = next(s for s in sql if "set_config('statement_timeout'" in s)
    (ranking,) = ranked(sql)
    rows = sql[sql.index(ranking) + 1]

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(budget)
        cursor.execute(
            "SELECT current_setting('statement_timeout'), current_setting('work_mem'),"
            " current_setting('max_parallel_workers_per_gather'), current_setting('jit')"
        )
        assert cursor.fetchone() == ("2s", "16MB", "0", "off")
    plan = plan_of(ranking, budget)
    # The GIN index, an exact bitmap, the count's buffer and the sort in memory, and the sort
    # keeps the first 1,000 only (a top-N heapsort, not a sort of the 4,000); no workers, which
    # would have every match sorted to merge theirs.
    assert "article_search_idx" in plan, plan
    assert "top-N heapsort" in plan, plan
    assert "lossy" not in plan and "temp " not in plan and "Disk" not in plan, plan
    assert "Gather" not in plan, plan
    # The page's rows: by primary key, nothing else read.
    rows_plan = plan_of(rows)
    assert "articles_article_pkey" in rows_plan, rows_plan
    assert "websearch_to_tsquery" not in rows


# --- the browsable API ----------------------------------------------------------------------------

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def template_forms(api, path: str) -> dict[str, list[str]]:
    from lxml import html

    response = api.get(path, headers={"Accept": BROWSER})
    assert response.status_code == 200
    document = html.fromstring(response.content)
    return {
        form.get("data-template"): [i.get("name") for i in form.xpath(".//input")]
        for form in document.xpath("//form[contains(@class, 'hal-template')]")
    }


def test_the_browsable_api_offers_q_sort_and_tag_on_the_blog_and_the_root(api, blog, garden):
    fields = ["pageIndex", "pageSize", "q", "sort", "tag"]
    template = "{?pageIndex,pageSize,q,sort,tag}"

    blog_forms = template_forms(api, f"{API}/blogs/{blog.pk}")
    root_forms = template_forms(api, f"{API}/")

    assert blog_forms[f"{ORIGIN}{API}/blogs/{blog.pk}/articles{template}"] == fields
    assert root_forms[f"{ORIGIN}{API}/articles{template}"] == fields
    # What the form sends without script: the search, as a page people can read.
    response = api.get(f"{API}/articles", {"q": "kitchen"}, headers={"Accept": BROWSER})
    assert response.status_code == 200
    assert b"A quiet kitchen" in response.content


def test_the_rel_pages_document_q_and_sort(api, db):
    for rel in ("articles", "search"):
        response = api.get(f"/docs/rels/{rel}")
        assert response.status_code == 200
        text = response.content.decode()
        assert "{?pageIndex,pageSize,q,sort,tag}" in text
        assert "relevance" in text
        assert "web-search syntax" in text
