"""A page of a blog's live articles in any order, at a cost that grows neither with the page
number nor with the blog (docs/decisions/deep-pages.md).

Each order reads a partial index `(blog_id, <column>, id)` of the live articles. A page seeks to
the nearest *boundary* (the sort key at a known position, remembered in the shared cache for the
blog, the column and the blog's revision) and skips at most PAGE_BOUNDARY_STRIDE entries; with no
boundary near enough, the read walks there in growing steps and remembers each landing. The
boundaries of a recent revision are carried over the changes since (order_changed), else the read
walks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections, models, router, transaction
from django.db.models import F, Func, QuerySet, Value
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual

from articles.models import SORT_COLUMNS, Article
from articles.selectors import offset_page
from articles.tags import with_tag_names
from blogs.models import Blog
from core.paging import Page
from core.time_bound import TimeBound, TimeBoundExceeded, time_bound

logger = logging.getLogger(__name__)

# Kept long: boundaries are replaced as soon as a read finds a newer revision of the blog.
BOUNDARIES_SECONDS = 24 * 3600
# A read carries boundaries over at most this many changes of the blog; further back, it walks.
CHANGES_CARRIED = 64
# The columns whose orders have boundaries: the id (the default order) and those of `sort=`.
ORDER_COLUMNS = ("id", *SORT_COLUMNS)
DEFAULT_ORDER = ("id",)
# The Retry-After of a page too slow to read (PageTooSlow).
RETRY_AFTER_SECONDS = 1


class PageTooSlow(Exception):
    """A page not read within PAGE_TIMEOUT_MS: the database was too busy. The boundaries the
    read found on the way are kept, so a retry starts from where it stopped."""

    def __init__(self) -> None:
        super().__init__(
            "The page could not be read in time; retry after Retry-After seconds (what was "
            "read on the way is kept), or ask for a pageIndex nearer the first or the last page."
        )


class Row(Func):
    """A row value, `(a, b)`: compared as a whole, which a B-tree index on (a, b) seeks to."""

    template = "(%(expressions)s)"
    output_field = models.Field()


def _on_cache(failure: str, operation: Callable[..., Any], *args: Any) -> Any:
    """`operation(*args)` on the shared cache, or None when the cache is unreachable: pages are
    then read without the boundaries, and walk instead."""
    try:
        return operation(*args)
    except Exception:
        logger.warning("%s: cache unreachable", failure, exc_info=True)
        return None


def _blog_prefix(blog: Blog) -> str:
    # The blog's creation time tells it from a blog of the same id in another database that
    # shares the cache (the benchmark's), whose revisions may have the same numbers.
    born = int(blog.created_at.timestamp() * 1_000_000)
    return f"pages:{blog.pk}:{born}"


def _change_key(blog: Blog, revision: int) -> str:
    return f"{_blog_prefix(blog)}:change:{revision}"


Key = tuple[Any, ...]


def _sort_key(article: Article | None, column: str) -> Key | None:
    """The article's key in `column`'s index, as a boundary holds it; None when not live."""
    if article is None:
        return None
    return (article.pk,) if column == "id" else (getattr(article, column), article.pk)


def order_changed(*, blog: Blog, before: Article | None, after: Article | None) -> None:
    """Remember, once the write commits, the sort keys in each order of the article that the
    change to `blog`'s revision (`blog` as written) took from `before` to `after` (None: not
    live). Nothing for a blog whose every page is within a stride of an end: its reads never
    look for boundaries."""
    if blog.article_count <= 2 * settings.PAGE_BOUNDARY_STRIDE:
        return
    change = {
        column: (_sort_key(before, column), _sort_key(after, column)) for column in ORDER_COLUMNS
    }
    remember = partial(cache.set, _change_key(blog, blog.revision), change, BOUNDARIES_SECONDS)
    transaction.on_commit(partial(_on_cache, "page boundaries' change not kept", remember))


class Boundaries:
    """The sort keys at known positions of one blog's live articles in one column's order
    (ascending, the id breaking ties), for one revision of the blog."""

    def __init__(self, blog: Blog, column: str) -> None:
        self.blog = blog
        self.column = column
        self.cache_key = f"{_blog_prefix(blog)}:boundaries:{column}"
        self.revision = blog.revision
        self.keys: dict[int, Key] = {}
        self.found = False

    @classmethod
    def read(cls, blog: Blog, column: str, *, alias: str) -> Boundaries:
        """Those remembered for the blog's current revision, or carried over to it from a recent
        one (none when the cache is down). `alias`: the database that compares titles."""
        boundaries = cls(blog, column)
        stored = boundaries._stored()
        if stored is None or stored[0] > boundaries.revision:
            return boundaries
        revision, keys = stored
        if revision == boundaries.revision:
            boundaries.keys = dict(keys)
        elif keys and boundaries.revision - revision <= CHANGES_CARRIED:
            carried = boundaries._carried(keys, range(revision + 1, boundaries.revision + 1), alias)
            if carried:
                boundaries.keys = carried
                boundaries.found = True  # kept for the current revision
        return boundaries

    def _carried(self, keys: dict[int, Key], revisions: range, alias: str) -> dict[int, Key]:
        """`keys` moved over the changes of `revisions`: each position moves down by one for
        each key that left from before it and up by one for each that entered before it; a
        boundary whose own article moved is dropped. Empty when a change is not remembered."""
        changes = _on_cache(
            "page boundaries' changes unreadable",
            cache.get_many,
            [_change_key(self.blog, revision) for revision in revisions],
        )
        # Each change must say how it moved this column (one remembered by a version of the
        # service that had no such order says nothing of it).
        moved_here = [change.get(self.column) for change in (changes or {}).values()]
        if len(moved_here) != len(revisions) or None in moved_here:
            return {}
        moves = [(before, after) for before, after in moved_here if before != after]
        if not moves:
            return dict(keys)
        moved_keys = [key for move in moves for key in move if key is not None]
        moved = {key[-1] for key in moved_keys}
        order = _comparable(self.column, [*keys.values(), *moved_keys], alias)
        carried = {}
        for position, key in keys.items():
            if key[-1] in moved:
                continue
            mark = order(key)
            shift = sum(
                (after is not None and order(after) < mark)
                - (before is not None and order(before) < mark)
                for before, after in moves
            )
            carried[position + shift] = key
        return carried

    def add(self, position: int, key: Key) -> None:
        self.keys[position] = key
        self.found = True

    def save(self) -> None:
        """Remember what this read found, with what others found for the same revision; never
        over boundaries of a later revision."""
        if not self.found:
            return
        stored = self._stored()
        if stored is not None and stored[0] > self.revision:
            return
        if stored is not None and stored[0] == self.revision:
            self.keys = {**stored[1], **self.keys}
        _on_cache(
            "page boundaries not kept",
            cache.set,
            self.cache_key,
            (self.revision, self.keys),
            BOUNDARIES_SECONDS,
        )

    def _stored(self) -> tuple[int, dict[int, Key]] | None:
        return _on_cache("page boundaries unreadable", cache.get, self.cache_key)


def _comparable(column: str, keys: list[Key], alias: str) -> Callable[[Key], Any]:
    """A function making `keys` of `column` comparable as the index orders them. Times and ids
    compare in Python as in the database; titles in the database's collation, which Python's
    string order is not: one statement sorts the distinct titles (no table read)."""
    if column != "title":
        return lambda key: key
    titles = list({key[0] for key in keys})
    # Only placeholders are joined into the statement; the titles are parameters.
    rows = ", ".join(["(CAST(%s AS TEXT))"] * len(titles))
    sorting = f"SELECT column1 FROM (VALUES {rows}) AS titles ORDER BY column1"  # noqa: S608
    with connections[alias].cursor() as cursor:
        cursor.execute(sorting, titles)
        rank = {title: number for number, (title,) in enumerate(cursor.fetchall())}
    return lambda key: (rank[key[0]], key[1])


def _from(live: QuerySet, fields: tuple[str, ...], key: tuple | None, *, forward: bool):
    """The live articles from the one whose sort key is `key` (included; the first or the last
    when None), in the index's order when `forward`, else backwards."""
    if key is not None:
        values = [
            Value(value, output_field=Article._meta.get_field(name))
            for name, value in zip(fields, key, strict=True)
        ]
        seek = GreaterThanOrEqual if forward else LessThanOrEqual
        live = live.filter(seek(Row(*[F(name) for name in fields]), Row(*values)))
    return live.order_by(*(fields if forward else [f"-{name}" for name in fields]))


def _ids(
    live: QuerySet,
    fields: tuple[str, ...],
    known: Boundaries,
    span: tuple[int, int],
    *,
    total: int,
    bound: TimeBound,
) -> QuerySet:
    """The ids of the articles at positions `span` (first, last; ascending order), as a
    subquery, after the walk to a boundary near enough: each step skips the longest of
    PAGE_BOUNDARY_STRIDE x 4**k entries that does not pass the page, and its landing is
    remembered, so that boundaries are coarse where nobody reads and dense where pages are."""
    first, last = span
    # The nearest known position at or before the page (else the first article, 0) and at or
    # after it (else the last, total - 1); a key of None is that end of the blog.
    # (Positions are distinct: the keys themselves are never compared.)
    before = max(((p, k) for p, k in known.keys.items() if p <= first), default=(0, None))
    after = min(((p, k) for p, k in known.keys.items() if p >= last), default=(total - 1, None))
    forward = first - before[0] <= after[0] - last
    position, key = before if forward else after
    stride = settings.PAGE_BOUNDARY_STRIDE
    distance = first - position if forward else position - last
    walked = False
    while distance > stride:
        step = stride
        while step * 4 <= distance:
            step *= 4
        if walked:
            bound.renew()
        found = _from(live, fields, key, forward=forward).values_list(*fields)
        row = next(iter(found[step : step + 1]), None)
        walked = True
        if row is None:  # fewer articles than the blog's count says: skip from here
            break
        position += step if forward else -step
        key, distance = tuple(row), distance - step
        known.add(position, key)
    if walked:
        bound.renew()  # the page's statement gets what the walk left
    return _from(live, fields, key, forward=forward).values("id")[
        distance : distance + last - first + 1
    ]


def article_page(
    *, blog: Blog, order: tuple[str, ...] = DEFAULT_ORDER, page_index: int, page_size: int
) -> Page[Article]:
    """Live articles of `blog` in `order` (a value of articles.search.ORDERINGS, or the id).
    The total is Blog.article_count (kept exact by the services: no COUNT); the page's ids come
    from the order's index and only those rows are read, in one statement, within
    PAGE_TIMEOUT_MS (PageTooSlow past it)."""
    total = blog.article_count
    start = (page_index - 1) * page_size
    if start >= total:  # compared before any OFFSET reaches the database
        return Page([], total, page_index, page_size)
    end = min(start + page_size, total)
    # Positions in the index's (ascending) order; a descending order reads them from the end.
    span = (total - end, total - 1 - start) if order[0].startswith("-") else (start, end - 1)
    # The columns of the index that serves `order`, ascending: ("title", "id"), or ("id",).
    fields = tuple(name.removeprefix("-") for name in order)
    near_an_end = min(span[0], total - 1 - span[1]) <= settings.PAGE_BOUNDARY_STRIDE
    # Where the router reads articles (the replica, when it may): the time bound's transaction
    # is opened there.
    alias = router.db_for_read(Article)
    if near_an_end:
        known = Boundaries(blog, fields[0])
    else:
        known = Boundaries.read(blog, fields[0], alias=alias)
    live = Article.objects.using(alias).live().in_blog(blog.pk)
    # The page's tag names in the same statement, when the blog has any tag at all.
    has_tags = getattr(blog, "has_tags", True)
    try:
        with time_bound(alias, settings.PAGE_TIMEOUT_MS) as bound:
            ids = _ids(live, fields, known, span, total=total, bound=bound)
            # One statement: the page's ids from the index, then only those rows.
            rows = Article.objects.using(alias).filter(pk__in=ids).order_by(*order)
            articles = list(with_tag_names(rows) if has_tags else rows)
    except TimeBoundExceeded:
        raise PageTooSlow from None
    finally:
        known.save()  # what the walk found, even when the bound cut it short
    for article in articles:
        article.blog = blog  # every article links to its blog by title: no query per article
        if not has_tags:
            article.tag_names = []
    return Page(articles, total, page_index, page_size)


def tagged_page(
    *, blog: Blog, tag: str, order: tuple[str, ...] = DEFAULT_ORDER, page_index: int, page_size: int
) -> Page[Article]:
    """Live articles of `blog` tagged `tag` (a slug) in `order`: another list than the blog's,
    with none of its boundaries (they count positions among all the blog's articles), so a
    COUNT and an OFFSET page, both within PAGE_TIMEOUT_MS (PageTooSlow past it)."""
    alias = router.db_for_read(Article)
    tagged = Article.objects.using(alias).live().in_blog(blog.pk).filter(tags__slug=tag)
    try:
        with time_bound(alias, settings.PAGE_TIMEOUT_MS):
            rows = with_tag_names(tagged.order_by(*order))
            page = offset_page(rows, tagged.count(), page_index, page_size)
    except TimeBoundExceeded:
        raise PageTooSlow from None
    for article in page.items:
        article.blog = blog
    return page
