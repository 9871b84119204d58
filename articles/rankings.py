"""A broad search's ranking as the cache keeps it (rank), and its carrying over the changes the
database recorded since its snapshot (carried; migration articles.0010), rather than the search
being ranked again (PostgreSQL; docs/decisions/search.md, "Broad searches" and "Carried over the
writes").
"""

from __future__ import annotations

from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, connections, router
from django.db.models import Count, Q, QuerySet, Window
from django.db.models.expressions import RawSQL

from articles.models import Article
from core.db_router import PRIMARY, reads_from_primary
from core.time_bound import time_bound

# The ids a search's ranking keeps: the first pages of any size (10 of the largest).
RANKING_KEPT = 1000


class Ranking(NamedTuple):
    """A search's ranking as kept: the number of matches and the ids of the first RANKING_KEPT,
    in order. On PostgreSQL also where it stands, for it to be carried over the writes that
    follow (carried): `last`, the order's key (column, id) of the last id kept when some matches
    are not kept; `snapshot`, the database snapshot it was taken in; `own`, the transaction it
    was taken in, if that had written, and the last change of that transaction it saw."""

    total: int
    ids: tuple[int, ...]
    last: tuple[Any, ...] | None = None
    snapshot: str | None = None
    own: tuple[str, int] | None = None


def sorted_by(order: tuple[Any, ...]) -> tuple[str, ...]:
    """The columns a ranking selects: the id, and what it is ordered by. Selected, the order's
    own values are what PostgreSQL sorts above COUNT(*) OVER (), keeping only the first rows (a
    top-N heapsort); an ORDER BY on an expression not selected had it sort every match (to disk,
    for 150,000) below the count."""
    return ("id", *(name.lstrip("-") for name in order if name.lstrip("-") != "id"))


def _key(order: tuple[Any, ...], row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The order's key (its columns' values, in its order) of a row of sorted_by(order)."""
    values = dict(zip(sorted_by(order), row, strict=True))
    return tuple(values[name.lstrip("-")] for name in order)


# What the snapshot of a ranking's statement is, and what its own transaction had written then:
# one value, "<snapshot> <own txid> <its last change>" (the last two when it has written).
_SEEN = RawSQL(
    "(SELECT concat_ws(' ', pg_current_snapshot(), pg_current_xact_id_if_assigned(),"
    " (SELECT max(id) FROM articles_searchchange WHERE txid = pg_current_xact_id_if_assigned())))",
    [],
)


def _seen(text: str) -> tuple[str, tuple[str, int] | None]:
    snapshot, *own = text.split(" ")
    if not own:
        return snapshot, None
    return snapshot, (own[0], int(own[1]) if len(own) > 1 else 0)


def rank(matches: QuerySet, order: tuple[Any, ...]) -> Ranking:
    """The number of matches and the ids of the first RANKING_KEPT, in one statement, with the
    snapshot it was taken in."""
    rows = list(
        matches.annotate(found=Window(Count("id")), seen=_SEEN)
        .order_by(*order)
        .values_list("found", "seen", *sorted_by(order))[:RANKING_KEPT]
    )
    if not rows:
        return Ranking(0, ())
    total = rows[0][0]
    snapshot, own = _seen(rows[0][1])
    last = _key(order, rows[-1][2:]) if total > len(rows) else None
    return Ranking(total, tuple(row[2] for row in rows), last, snapshot, own)


# At most this many changed articles are carried over; past it a search is ranked again.
CHANGES_CARRIED = 64

# The changes a ranking has not seen: those of transactions running when its snapshot was taken or
# begun since (each by the index on txid, at most CHANGES_CARRIED + 1), and those its own
# transaction made after it (it had written, as a test's does: a snapshot does not count its own
# transaction, so these go by their order).
_UNSEEN = """
    (SELECT * FROM articles_searchchange
      WHERE txid >= pg_snapshot_xmax(%(snapshot)s::pg_snapshot)
        AND txid IS DISTINCT FROM %(own)s::xid8 ORDER BY txid LIMIT %(limit)s)
    UNION ALL
    (SELECT change.* FROM pg_snapshot_xip(%(snapshot)s::pg_snapshot) AS running (txid),
            LATERAL (SELECT * FROM articles_searchchange
                      WHERE txid = running.txid LIMIT %(limit)s) AS change
      WHERE running.txid IS DISTINCT FROM %(own)s::xid8 LIMIT %(limit)s)
    UNION ALL
    (SELECT * FROM articles_searchchange
      WHERE txid = %(own)s::xid8 AND id > %(own_last)s LIMIT %(limit)s)
"""

# The changes, in order, with what each changed article was for the search then (live, in the
# scope, matching) and is now, the statement's snapshot, and its own transaction and that
# transaction's last change; a change naming no article is a bulk write's.
_CHANGES_SQL = """
SELECT cur.snapshot, cur.own, cur.own_last, c.id, c.article_id,
       coalesce(c.old_live AND c.old_vector @@ cur.query{old_scope}, false),
       coalesce(a.deleted_at IS NULL AND a.search_vector @@ cur.query{new_scope}, false)
FROM (SELECT pg_current_snapshot()::text AS snapshot,
             pg_current_xact_id_if_assigned()::text AS own,
             (SELECT max(id) FROM articles_searchchange
               WHERE txid = pg_current_xact_id_if_assigned()) AS own_last,
             websearch_to_tsquery(%(config)s::regconfig, %(query)s) AS query) cur
LEFT JOIN (SELECT * FROM ({unseen}) unseen ORDER BY id LIMIT %(limit)s) c ON true
LEFT JOIN LATERAL (SELECT deleted_at, blog_id, search_vector FROM {articles}
                    WHERE id = c.article_id) a ON true
ORDER BY c.id
"""


def carried(
    ranking: Ranking,
    matches: QuerySet,
    order: tuple[Any, ...],
    search: tuple[str, str],
    blog_id: int | None,
) -> Ranking | None:
    """`ranking` brought to the articles' present: the changes it has not seen (one statement)
    move its number by the articles that stopped or started matching and, when one of them
    matched before or does now, its ids are read again among those kept and the changed ones, as
    far as its last key (one statement). None past CHANGES_CARRIED changes or after a bulk write.

    `search`: the text search configuration and the text for websearch_to_tsquery. Each
    statement within SEARCH_TIMEOUT_MS (TimeBoundExceeded past it). On a replica behind the
    ranking's snapshot, carried on the primary."""
    alias = router.db_for_read(Article)
    result = _carried_on(alias, ranking, matches, order, search, blog_id)
    if result is _BEHIND:
        with reads_from_primary():
            result = _carried_on(PRIMARY, ranking, matches, order, search, blog_id)
    return None if result is _BEHIND else result


_BEHIND: Any = object()


def _carried_on(
    alias: str,
    ranking: Ranking,
    matches: QuerySet,
    order: tuple[Any, ...],
    search: tuple[str, str],
    blog_id: int | None,
) -> Ranking | None:
    assert ranking.snapshot is not None
    own_txid, own_last = ranking.own or (None, 0)
    params = {
        "snapshot": ranking.snapshot,
        "own": own_txid,
        "own_last": own_last,
        "limit": CHANGES_CARRIED + 1,
        "config": search[0],
        "query": search[1],
        "blog_id": blog_id,
    }
    scope = "" if blog_id is None else " AND {}.blog_id = %(blog_id)s"
    # No request data in it: fixed fragments and the table's own name.
    sql = _CHANGES_SQL.format(
        unseen=_UNSEEN,
        old_scope=scope.format("c"),
        new_scope=scope.format("a"),
        articles=connections[alias].ops.quote_name(Article._meta.db_table),
    )
    # One transaction, each statement within what is left of SEARCH_TIMEOUT_MS: at most 65
    # changes by their index and as many articles by primary key
    # (tests/rest/test_search_carried.py checks the plan), then perhaps the ids kept, by id.
    with time_bound(alias, settings.SEARCH_TIMEOUT_MS) as bound:
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        snapshot, own, own_txid_last = rows[0][:3]
        if not _covers(snapshot, ranking.snapshot, ranking.own):
            return _BEHIND
        seen = (snapshot, (own, own_txid_last or 0) if own is not None else None)
        changes = [row[4:] for row in rows if row[3] is not None]
        if len(changes) > CHANGES_CARRIED or any(article is None for article, _, _ in changes):
            return None
        state: dict[int, list[bool]] = {}
        for article, was, now in changes:
            state.setdefault(article, [was, now])[1] = now  # what it was when first changed
        total = ranking.total + sum(now - was for was, now in state.values())
        if not any(was or now for was, now in state.values()):
            return ranking._replace(total=total, snapshot=seen[0], own=seen[1])
        candidates = [pk for pk in ranking.ids if pk not in state]
        candidates += [pk for pk, (_, now) in state.items() if now]
        kept = matches.using(alias).filter(pk__in=candidates)
        if ranking.last is not None:
            kept = kept.filter(_at_or_before(order, ranking.last))
        bound.renew()
        first = list(kept.order_by(*order).values_list(*sorted_by(order))[: RANKING_KEPT + 1])
    last = ranking.last
    if len(first) > RANKING_KEPT:
        first = first[:RANKING_KEPT]
        last = _key(order, first[-1])
    if total <= len(first):
        last = None
    return Ranking(total, tuple(row[0] for row in first), last, *seen)


# How long the changes are kept (on PostgreSQL): far longer than any kept ranking is old, since each
# was taken or carried within RANKING_SECONDS and a write's transaction lasts seconds.
CHANGES_KEPT_SECONDS = 3600


def forget_changes() -> int:
    """Drop the changes written more than CHANGES_KEPT_SECONDS ago; the number dropped."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM articles_searchchange"
            " WHERE changed_at < clock_timestamp() - make_interval(secs => %s)",
            [CHANGES_KEPT_SECONDS],
        )
        return cursor.rowcount


def _at_or_before(order: tuple[Any, ...], last: tuple[Any, ...]) -> Q:
    """The rows that come no later than the key `last` in `order` (a column, then the id)."""
    (column, tie), (value, tie_value) = order, last
    name, tie_name = column.lstrip("-"), tie.lstrip("-")
    before = "gt" if column.startswith("-") else "lt"
    tie_before = "gte" if tie.startswith("-") else "lte"
    return Q(**{f"{name}__{before}": value}) | Q(
        **{name: value, f"{tie_name}__{tie_before}": tie_value}
    )


def _xids(snapshot: str) -> tuple[int, set[int]]:
    """A snapshot's xmax and its running transactions ("xmin:xmax:xip,...")."""
    _, xmax, running = snapshot.split(":")
    return int(xmax), {int(x) for x in running.split(",") if x}


def _covers(newer: str, older: str, own: tuple[str, int] | None) -> bool:
    """Whether every transaction the snapshot `older` sees is seen by `newer` (a replica that
    has replayed at least as far); the ranking's own transaction, if any, counts as seen."""
    xmax, running = _xids(newer)
    old_xmax, old_running = _xids(older)
    mine = int(own[0]) if own else None
    return xmax >= old_xmax and all(x >= old_xmax or x in old_running or x == mine for x in running)
