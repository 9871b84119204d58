"""Search and ordering of articles: the pages of `?q=` and `?sort=`, for REST and GraphQL.

Full-text on PostgreSQL, every word by icontains on SQLite: docs/decisions/search.md and
docs/rest.md, "Search and ordering".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connection, connections, router
from django.db.models import Case, Count, Q, QuerySet, Value, When, Window
from django.db.models import IntegerField as IntegerOutput
from django.db.models.expressions import RawSQL

from articles import rankings
from articles.models import SORT_COLUMNS, Article
from articles.pages import DEFAULT_ORDER, article_page, tagged_page
from articles.rankings import Ranking, sorted_by
from articles.selectors import past_every_table
from articles.tags import with_tag_names
from blogs.models import Blog
from core import representations
from core.db_router import PRIMARY, reads_from_primary
from core.paging import Page
from core.time_bound import TimeBoundExceeded, time_bound

QUERY_MAX_LENGTH = 200
SEARCH_CONFIG = "english"

# PostgreSQL's tsquery parser stacks one NOT for each `-` that starts a word, and at most 32
# operators in all ("tsquery stack too small" past that; an OR and an AND may be waiting below
# the NOTs). Only a word or a quote ends such a run, whatever lies between its `-` (spaces,
# `!`, `(` ...), so a run of other characters with more `-` than this is folded (_web_search).
NEGATIONS_MAX = 16
_BETWEEN_WORDS = re.compile(r'[^\w"]+')
# How long a broad search's ranking is kept (while its generations stand): not a representation,
# so REPRESENTATION_CACHE_SECONDS (0 on the benchmark's scale server) does not turn it off.
RANKING_SECONDS = 300

RELEVANCE = "relevance"
# The value of `sort=` ("created", "-created"...) and the columns it orders by; the id breaks
# ties in the same direction, so that paging is deterministic.
ORDERINGS: dict[str, tuple[str, ...]] = {
    f"{way}{name}": (f"{way}{column}", f"{way}id")
    for column, name in SORT_COLUMNS.items()
    for way in ("", "-")
}
SORTS: tuple[str, ...] = (*ORDERINGS, RELEVANCE)


TOO_BROAD = "The search matches too many articles to rank in time; add words to narrow it."


class SearchError(ValueError):
    """A `q` or `sort` the API refuses; `parameter` names it (REST: a 400, GraphQL: an error)."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def clean_query(raw: str | None) -> str | None:
    """The search text of `q`, or None when there is no search; SearchError when it is empty,
    blank, longer than QUERY_MAX_LENGTH or holds a NUL (which PostgreSQL cannot take)."""
    if raw is None:
        return None
    if not raw.strip():
        raise SearchError("q", "q must not be empty.")
    if len(raw) > QUERY_MAX_LENGTH:
        raise SearchError("q", f"q must be at most {QUERY_MAX_LENGTH} characters.")
    if "\x00" in raw:
        raise SearchError("q", "q must not contain NUL characters.")
    return raw.strip()


def clean_sort(raw: str | None, *, query: str | None) -> str | None:
    """The `sort` value, or None for the default order (relevance with a search, else the id);
    SearchError for an unknown value, or `relevance` without `q`."""
    if raw is None:
        return None
    if raw not in SORTS:
        raise SearchError("sort", f"sort must be one of: {', '.join(SORTS)}.")
    if raw == RELEVANCE and query is None:
        raise SearchError("sort", "sort=relevance needs q.")
    return raw


def search_vector() -> Any:
    """The article's stored `search_vector` column (PostgreSQL only). The model does not declare
    it (SQLite has no tsvector type), so it is named here; the page queries read the articles
    table unaliased."""
    from django.contrib.postgres.search import SearchVectorField

    table = Article._meta.db_table
    # No request data in it: the table's own name and a fixed column.
    return RawSQL(f'"{table}"."search_vector"', [], output_field=SearchVectorField())  # noqa: S611


def _fold_negations(between: re.Match[str]) -> str:
    run = between.group()
    hyphens = run.count("-")
    if hyphens <= NEGATIONS_MAX:
        return run
    # Two NOTs cancel: what the run meant, in one NOT or none, before the word that follows.
    return run.replace("-", " ") + "-" * (hyphens % 2)


def web_search_text(query: str) -> str:
    """`query` as websearch_to_tsquery can always read it: the same search, with every run of
    more than NEGATIONS_MAX `-` between two words folded to the one NOT (or none) it amounts to."""
    return _BETWEEN_WORDS.sub(_fold_negations, query)


def _matching(articles: QuerySet, query: str) -> QuerySet:
    """`articles` that match `query`, annotated with `relevance` (higher first)."""
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchRank

        vector = search_vector()
        text = SearchQuery(web_search_text(query), config=SEARCH_CONFIG, search_type="websearch")
        return (
            articles.alias(search=vector)
            .filter(search=text)
            .annotate(relevance=SearchRank(vector, text))
        )
    everywhere = Q()
    in_title = Q()
    for word in query.split():
        everywhere &= Q(title__icontains=word) | Q(content__icontains=word)
        in_title &= Q(title__icontains=word)
    return articles.filter(everywhere).annotate(
        relevance=Case(
            When(in_title, then=Value(1)), default=Value(0), output_field=IntegerOutput()
        )
    )


def _order(query: str | None, sort: str | None) -> tuple[Any, ...]:
    if sort == RELEVANCE or (sort is None and query is not None):
        return ("-relevance", "id")
    return DEFAULT_ORDER if sort is None else ORDERINGS[sort]


def _search_page(
    articles: QuerySet,
    query: str,
    order: tuple[Any, ...],
    index: int,
    size: int,
    *,
    tag: str | None,
    blog_id: int | None = None,
) -> Page[Article]:
    """The page of `articles` (the live ones of the blog `blog_id`, or of every blog) that match
    `query` (and carry `tag`), in `order`, with their number; within SEARCH_TIMEOUT_MS on
    PostgreSQL, else SearchError.

    On PostgreSQL a broad search (SEARCH_CACHE_MIN_MATCHES) is ranked once per state of the
    articles: its number of matches and first ids (rankings.rank) are kept under the articles'
    generation, and a page reads only its own rows, by id (docs/decisions/search.md, "Broad
    searches"). A ranking of an older generation is carried over the writes since
    (rankings.carried), except a tag's: tagging an article is no write to the articles table."""
    if tag is not None:
        articles = articles.filter(tags__slug=tag)
    # Where the router reads articles (the replica, when it may): the time budget's transaction
    # is opened there, as one on the primary would send every read of the search to the primary.
    alias = router.db_for_read(Article)
    if connections[alias].vendor != "postgresql":
        return _counted_page(_matching(articles.using(alias), query), order, index, size)
    matches = _matching(articles, query)
    offset = (index - 1) * size
    end = offset + size
    rows: list[Article] | None = None

    def rank() -> Ranking:
        nonlocal rows
        alias = router.db_for_read(Article)
        with _time_budget(alias):
            ranking = rankings.rank(matches.using(alias), order)
            # The page in the same transaction, and as the ranking saw the articles.
            rows = _page_rows(articles, matches, order, ranking, offset, end, alias)
        return ranking

    def carry(ranking: Ranking) -> Ranking | None:
        if ranking.snapshot is None:
            return None  # no match when ranked: nothing to carry (and nothing kept)
        search = (SEARCH_CONFIG, web_search_text(query))
        try:
            return rankings.carried(ranking, matches, order, search, blog_id)
        except TimeBoundExceeded:
            raise SearchError("q", TOO_BROAD) from None

    if blog_id is None:
        scope, generation = "all", representations.articles_generation()
    else:
        scope, generation = f"blog:{blog_id}", representations.blog_articles_generation(blog_id)
    if tag is not None:
        scope += f":tag:{tag}"
    # Outside any transaction: on the database store too, the cache's entries and the mark of
    # the one ranking a search are seen by every process at once. A search reads where the
    # router says, a replica that is behind too (kept only when it has the generations' state).
    ranking = representations.cached(
        _ranking_key(scope, query, order),
        [generation],
        rank,
        keep=lambda ranking: ranking.total >= settings.SEARCH_CACHE_MIN_MATCHES,
        wait=settings.SEARCH_TIMEOUT_MS / 1000,
        where_routed=True,
        seconds=RANKING_SECONDS,
        refresh=carry if tag is None else None,
    )
    if rows is None:  # ranked before
        with _time_budget(alias):
            rows = _page_rows(articles, matches, order, ranking, offset, end, alias)
    return Page(rows, ranking.total, index, size)


def _ranking_key(scope: str, query: str, order: tuple[Any, ...]) -> str:
    digest = hashlib.sha256(query.encode()).hexdigest()
    # "ranking": a Ranking (before issue 27's carry the entries under "search:" were pairs).
    return f"ranking:{scope}:{','.join(order)}:{digest}"


def _page_rows(
    articles: QuerySet,
    matches: QuerySet,
    order: tuple[Any, ...],
    ranking: Ranking,
    offset: int,
    end: int,
    alias: str,
) -> list[Article]:
    """The articles of the page from `offset` to `end` of `ranking`; a page past the last match
    (however far: past_every_table) asks for no rows."""
    total, ids = ranking.total, ranking.ids
    if offset >= total:
        return []
    if end <= len(ids) or len(ids) >= total:
        return _rows(articles, ids[offset:end], alias)
    # Deeper than the ranking kept.
    rows = matches.using(alias).order_by(*order).values_list(*sorted_by(order))[offset:end]
    return _rows(articles, [row[0] for row in rows], alias)


def _rows(articles: QuerySet, ids: list[int] | tuple[int, ...], alias: str) -> list[Article]:
    """The articles `ids`, in that order. One the replica does not have yet (a ranking built on
    the primary, read from a replica that is behind it) is read from the primary."""
    articles = with_tag_names(articles)
    found = {article.pk: article for article in articles.using(alias).filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in found]
    if missing and alias != PRIMARY:
        with reads_from_primary(), _time_budget(PRIMARY):
            found.update((a.pk, a) for a in articles.using(PRIMARY).filter(pk__in=missing))
    return [found[pk] for pk in ids if pk in found]


def _counted_page(matches: QuerySet, order: tuple[Any, ...], index: int, size: int):
    """SQLite's page of `matches` and their number in one statement (COUNT(*) OVER ()); a page
    past the end has no row to carry the number, so it is counted apart."""
    offset = (index - 1) * size
    if past_every_table(page_index=index, page_size=size):
        return Page([], matches.count(), index, size)
    rows = list(
        with_tag_names(matches)
        .annotate(found=Window(Count("id")))
        .order_by(*order)[offset : offset + size]
    )
    total = rows[0].found if rows else (matches.count() if offset else 0)
    return Page(rows, total, index, size)


@contextmanager
def _time_budget(alias: str) -> Iterator[None]:
    """Run a search's statements on database `alias` within SEARCH_TIMEOUT_MS (core.time_bound).
    A search that matches most of a large blog must rank every match: cancelled, it is a
    SearchError asking for more words, not a held connection."""
    # Settings for a search's statements only (SET LOCAL: they end with its transaction), each
    # measured on 5,000,000 articles (docs/decisions/search.md, "Broad searches"): statement_timeout
    # is the budget; work_mem (SEARCH_WORK_MEM) keeps the bitmap of a broad search's matches exact
    # (at 4 MB it went lossy and every article of a lossy page was rechecked) and the count's buffer
    # in memory; no parallel workers, with which the planner sorted every match (to merge the
    # workers' rows) instead of keeping the first ones (a top-N heapsort), and which a busy server
    # has no spare CPU for; no JIT, whose compiling took 4-35 ms of a statement that ran 200-700.
    also = {
        "work_mem": settings.SEARCH_WORK_MEM,
        "max_parallel_workers_per_gather": "0",
        "jit": "off",
    }
    try:
        with time_bound(alias, settings.SEARCH_TIMEOUT_MS, also=also):
            yield
    except TimeBoundExceeded:
        raise SearchError("q", TOO_BROAD) from None


def blog_article_page(
    *,
    blog: Blog,
    query: str | None,
    sort: str | None,
    page_index: int,
    page_size: int,
    tag: str | None = None,
) -> Page[Article]:
    """A page of the blog's live articles, matching `query` and tagged `tag` (a slug) when
    given, in the order of `sort`: without a search, articles.pages reads it."""
    order = _order(query, sort)
    if query is None:
        if tag is not None:
            return tagged_page(
                blog=blog, tag=tag, order=order, page_index=page_index, page_size=page_size
            )
        return article_page(blog=blog, order=order, page_index=page_index, page_size=page_size)
    articles = Article.objects.live().in_blog(blog.pk)
    page = _search_page(articles, query, order, page_index, page_size, tag=tag, blog_id=blog.pk)
    for article in page.items:
        article.blog = blog  # each links to its blog by title: no query per article
    return page


def article_search_page(
    *, query: str, sort: str | None, page_index: int, page_size: int, tag: str | None = None
) -> Page[Article]:
    """A page of the live articles of every blog (archived ones included: readers still see
    them) that match `query` (and carry a tag of slug `tag` when given), each with its blog
    (one join)."""
    articles = Article.objects.live().select_related("blog")
    return _search_page(articles, query, _order(query, sort), page_index, page_size, tag=tag)
