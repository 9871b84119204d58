"""Search and ordering of articles: the pages of `?q=` and `?sort=`, for REST and GraphQL.

Full-text on PostgreSQL, every word by icontains on SQLite: docs/decisions/search.md and
docs/rest.md, "Search and ordering".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Case, Count, Q, QuerySet, Value, When, Window
from django.db.models import IntegerField as IntegerOutput
from django.db.models.expressions import RawSQL

from articles.models import Article
from articles.selectors import article_page, past_every_table
from blogs.models import Blog
from core.paging import Page

QUERY_MAX_LENGTH = 200
SEARCH_CONFIG = "english"
QUERY_CANCELED = "57014"  # PostgreSQL's SQLSTATE for a statement over statement_timeout

# PostgreSQL's tsquery parser stacks one NOT for each `-` that starts a word, and at most 32
# operators in all ("tsquery stack too small" past that; an OR and an AND may be waiting below
# the NOTs). Only a word or a quote ends such a run, whatever lies between its `-` (spaces,
# `!`, `(` ...), so a run of other characters with more `-` than this is folded (_web_search).
NEGATIONS_MAX = 16
_BETWEEN_WORDS = re.compile(r'[^\w"]+')

RELEVANCE = "relevance"
# The value of `sort=` and the columns it orders by; the id breaks ties in the same direction,
# so that paging is deterministic.
ORDERINGS: dict[str, tuple[str, ...]] = {
    "created": ("created_at", "id"),
    "-created": ("-created_at", "-id"),
    "updated": ("updated_at", "id"),
    "-updated": ("-updated_at", "-id"),
    "title": ("title", "id"),
    "-title": ("-title", "-id"),
}
SORTS: tuple[str, ...] = (*ORDERINGS, RELEVANCE)


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
    words = query.split()
    everywhere = Q()
    in_title = Q()
    for word in words:
        everywhere &= Q(title__icontains=word) | Q(content__icontains=word)
        in_title &= Q(title__icontains=word)
    return articles.filter(everywhere).annotate(
        relevance=Case(
            When(in_title, then=Value(1)), default=Value(0), output_field=IntegerOutput()
        )
    )


def _order(query: str | None, sort: str | None) -> tuple[Any, ...]:
    if sort is None:
        sort = RELEVANCE if query is not None else None
    if sort == RELEVANCE:
        return ("-relevance", "id")
    if sort is None:
        return ("id",)
    return ORDERINGS[sort]


def _page_of(articles: QuerySet, total: int, order: tuple[Any, ...], index: int, size: int):
    offset = (index - 1) * size
    if offset >= total:
        return Page([], total, index, size)
    return Page(list(articles.order_by(*order)[offset : offset + size]), total, index, size)


def _search_page(matches: QuerySet, order: tuple[Any, ...], index: int, size: int):
    """The page of `matches` and their number in one statement (COUNT(*) OVER (): the index is
    searched once for both); a page past the end has no row to carry the number, so it is
    counted apart. On PostgreSQL within SEARCH_TIMEOUT_MS, else SearchError."""
    offset = (index - 1) * size
    with _time_budget():
        if past_every_table(page_index=index, page_size=size):
            return Page([], matches.count(), index, size)
        rows = list(
            matches.annotate(found=Window(Count("id"))).order_by(*order)[offset : offset + size]
        )
        total = rows[0].found if rows else (matches.count() if offset else 0)
    return Page(rows, total, index, size)


@contextmanager
def _time_budget() -> Iterator[None]:
    """Run a search's statements under statement_timeout = SEARCH_TIMEOUT_MS (PostgreSQL; SET
    LOCAL ends with the transaction). A search that matches most of a large blog must rank
    every match: cancelled, it is a SearchError asking for more words, not a held connection."""
    if connection.vendor != "postgresql":
        yield
        return
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT set_config('statement_timeout', %s, true)",
                    [str(settings.SEARCH_TIMEOUT_MS)],
                )
            yield
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != QUERY_CANCELED:
            raise
        raise SearchError(
            "q",
            "The search matches too many articles to rank in time; add words to narrow it.",
        ) from None


def blog_article_page(
    *, blog: Blog, query: str | None, sort: str | None, page_index: int, page_size: int
) -> Page[Article]:
    """A page of the blog's live articles: matching `query` when given, in the order of `sort`.

    Without either, selectors.article_page (the id order, no COUNT). A sort alone counts from
    Blog.article_count too; a search counts its matches in the page's own statement."""
    if query is None and sort is None:
        return article_page(blog=blog, page_index=page_index, page_size=page_size)
    articles = Article.objects.live().in_blog(blog.pk)
    if query is None:
        page = _page_of(articles, blog.article_count, _order(None, sort), page_index, page_size)
    else:
        page = _search_page(_matching(articles, query), _order(query, sort), page_index, page_size)
    for article in page.items:
        article.blog = blog  # each links to its blog by title: no query per article
    return page


def article_search_page(
    *, query: str, sort: str | None, page_index: int, page_size: int
) -> Page[Article]:
    """A page of the live articles of every blog (archived ones included: readers still see
    them) that match `query`, each with its blog (one join)."""
    matches = _matching(Article.objects.live().select_related("blog"), query)
    return _search_page(matches, _order(query, sort), page_index, page_size)
