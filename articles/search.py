"""Search and ordering of articles: the pages of `?q=` and `?sort=`, for REST and GraphQL.

PostgreSQL: full-text search. `q` is read by websearch_to_tsquery (quoted phrases, `or`,
`-word`) with the `english` configuration, matched against the title (weight A) and the content
(weight B), ranked by ts_rank, and served from the GIN index `article_search_idx` (migration
0003), whose expression is exactly `search_vector()` below: change one, change both.
SQLite: every whitespace-separated word of `q` must occur in the title or in the content
(icontains: case-insensitive for ASCII letters); relevance puts the articles whose title holds
every word first. docs/rest.md, "Search and ordering", tells users the difference.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Case, Q, QuerySet, Value, When
from django.db.models import IntegerField as IntegerOutput

from articles.models import Article
from articles.selectors import Page, article_page
from blogs.models import Blog

QUERY_MAX_LENGTH = 200
SEARCH_CONFIG = "english"
SEARCH_INDEX = "article_search_idx"

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
    """What is searched on PostgreSQL; the migration's index is this very expression."""
    from django.contrib.postgres.search import SearchVector

    return SearchVector("title", config=SEARCH_CONFIG, weight="A") + SearchVector(
        "content", config=SEARCH_CONFIG, weight="B"
    )


def _matching(articles: QuerySet, query: str) -> QuerySet:
    """`articles` that match `query`, annotated with `relevance` (higher first)."""
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchRank

        vector = search_vector()
        text = SearchQuery(query, config=SEARCH_CONFIG, search_type="websearch")
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


def blog_article_page(
    *, blog: Blog, query: str | None, sort: str | None, page_index: int, page_size: int
) -> Page[Article]:
    """A page of the blog's live articles: matching `query` when given, in the order of `sort`.

    Without either, selectors.article_page (the id order, no COUNT). A sort alone counts from
    Blog.article_count too; a search counts its matches (one COUNT over the index)."""
    if query is None and sort is None:
        return article_page(blog=blog, page_index=page_index, page_size=page_size)
    articles = Article.objects.live().in_blog(blog.pk)
    if query is None:
        total = blog.article_count
    else:
        articles = _matching(articles, query)
        total = articles.count()
    page = _page_of(articles, total, _order(query, sort), page_index, page_size)
    for article in page.items:
        article.blog = blog  # each links to its blog by title: no query per article
    return page


def article_search_page(
    *, query: str, sort: str | None, page_index: int, page_size: int
) -> Page[Article]:
    """A page of the live articles of every blog (archived ones included: readers still see
    them) that match `query`, each with its blog (one join)."""
    articles = _matching(Article.objects.live().select_related("blog"), query)
    total = articles.count()
    return _page_of(articles, total, _order(query, sort), page_index, page_size)
