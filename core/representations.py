"""A cache of the API's hot representations, invalidated by generations
(docs/decisions/representation-cache.md). A miss is built from the read replica when it has
replayed the writes that set the generations, from the primary otherwise
(docs/decisions/read-replica.md).
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, transaction

from core import edge_purge
from core.db_router import (
    primary_wal_position,
    reads_from_primary,
    replica_available,
    replica_configured,
    replica_replayed,
)

logger = logging.getLogger(__name__)

# How long an UNCOMMITTED marker stands (an entry lasts REPRESENTATION_CACHE_SECONDS).
MARKER_SECONDS = 300
GENERATION_SECONDS = 24 * 3600
GENERATION_PREFIX = "rep:gen:"
# The position of a tag renewed inside a transaction: the write's commit is not known yet, and
# if its renewal at the commit is lost (the cache unreachable then), the tag stays. Entries for
# it are built from the primary, as long as the marker lasts.
UNCOMMITTED = "uncommitted"
# How often a waiter looks for the entry another caller is building.
WAIT_POLL_SECONDS = 0.02
_MISSING = object()


def article_generation(article_id: int) -> str:
    return f"rep:gen:article:{article_id}"


def blog_generation(blog_id: int) -> str:
    return f"rep:gen:blog:{blog_id}"


def blog_articles_generation(blog_id: int) -> str:
    return f"rep:gen:blog-articles:{blog_id}"


def articles_generation() -> str:
    """The articles of every blog: renewed with each blog's articles (what the search across
    blogs keeps)."""
    return "rep:gen:articles"


def blogs_generation() -> str:
    """The blog list: renewed when a blog is created, edited or deleted."""
    return "rep:gen:blogs"


def article_comments_generation(article_id: int) -> str:
    """An article's comments: renewed by each comment written or deleted, and with the article
    (a deleted article's comments answer 410)."""
    return f"rep:gen:article-comments:{article_id}"


def edge_keys(generations: Iterable[str]) -> list[str]:
    """The edge cache's surrogate keys of `generations`: each generation's tag without the
    prefix (docs/decisions/edge-cache.md), so that a write renews and purges the same names."""
    keys = []
    for name in generations:
        if not name.startswith(GENERATION_PREFIX):
            raise ValueError(f"not a generation: {name!r}")
        keys.append(name.removeprefix(GENERATION_PREFIX))
    return keys


def _position_key(tag: str) -> str:
    """Where a generation's tag keeps a WAL position of the primary read after the tag was set:
    past every commit of a write that set the generation before (tags are unique)."""
    return f"rep:wal:{tag}"


def cached(
    key: str,
    generations: list[str],
    build: Callable[[], Any],
    *,
    keep: Callable[[Any], bool] | None = None,
    wait: float = 0.0,
    where_routed: bool = False,
    seconds: int | None = None,
    refresh: Callable[[Any], Any] | None = None,
) -> Any:
    """The value stored under `key` while `generations` stand, else `build()`, stored (unless
    `keep` refuses it) for `seconds` (REPRESENTATION_CACHE_SECONDS by default; 0 stores nothing
    and builds from the primary, as a miss does when no replica may serve it).

    `wait` (seconds): one caller builds a missing entry while the others wait up to that long for
    it instead of each building it; a waiter builds after all if the builder fails, keeps nothing
    or takes longer. `where_routed`: a build reads wherever the router sends it, even a replica
    behind the generations' writes, and is then not kept: an entry never holds a state older than
    its tags. `refresh`: an entry stored under older generations is passed to it, to be brought
    up to date (then stored as a build would be), or None to build again (articles.search's
    rankings, which say what state they hold)."""
    entry_seconds = settings.REPRESENTATION_CACHE_SECONDS if seconds is None else seconds
    if not entry_seconds:
        if where_routed:
            return build()
        with reads_from_primary():
            return build()
    try:
        tags, found, older = _entry(key, generations)
    except Exception:  # the cache is down: serve from the database
        logger.warning("representation cache unreachable", exc_info=True)
        return build()
    if found is not _MISSING:
        return found
    if refresh is not None and older is not _MISSING:
        value, fresh = _routed(lambda: refresh(older), tags, where_routed)
        if value is not None:
            if fresh and (keep is None or keep(value)):
                _store(key, tags, value, entry_seconds)
            return value
    try:
        # The builder's mark names the tags: a build for an older state keeps no one waiting.
        building = f"{key}:building:{':'.join(map(str, tags))}"
        if wait and not cache.add(building, 1, math.ceil(wait)):
            done, value = _built_meanwhile(key, tags, building, wait)
            if done:
                return value
            wait = 0.0
    except Exception:  # the cache is down: serve from the database
        logger.warning("representation cache unreachable", exc_info=True)
        return build()
    try:
        value, fresh = _routed(build, tags, where_routed)
        if fresh and (keep is None or keep(value)):
            _store(key, tags, value, entry_seconds)
    finally:
        if wait:
            try:
                cache.delete(building)
            except Exception:  # the mark expires after `wait`
                logger.warning("representation cache unreachable", exc_info=True)
    return value


def _entry(key: str, generations: list[str]) -> tuple[list[Any], Any, Any]:
    """The generations' tags (started where not seen yet), the value stored under `key` for them
    (else _MISSING), and the value stored under other tags (else _MISSING)."""
    found = cache.get_many([key, *generations])
    tags = [found.get(name) for name in generations]
    if None in tags:
        # A generation not seen yet (or evicted): start it; whoever wins `add` sets it.
        for name, tag in zip(generations, tags, strict=True):
            if tag is None:
                cache.add(name, uuid.uuid4().hex, GENERATION_SECONDS)
        tags = [cache.get(name) for name in generations]
    entry = found.get(key)
    if entry is None:
        return tags, _MISSING, _MISSING
    if entry[0] == tags:
        return tags, entry[1], _MISSING
    return tags, _MISSING, entry[1]


def _routed(make: Callable[[], Any], tags: list[Any], where_routed: bool) -> tuple[Any, bool]:
    """`make()` and whether it may be kept under `tags`: read from the replica when it has
    replayed their writes, else from the primary, or (`where_routed`) wherever the router sends
    it, kept only if that is the primary."""
    if _replica_has_replayed(tags):
        return make(), True  # the router reads the replica (or the primary, if it has gone since)
    if where_routed:
        fresh = not replica_available()  # else the router reads a replica behind the tags
        return make(), fresh
    with reads_from_primary():
        return make(), True


def _store(key: str, tags: list[Any], value: Any, seconds: int) -> None:
    try:
        cache.set(key, (tags, value), seconds)
    except Exception:
        logger.warning("representation cache unreachable", exc_info=True)


def _built_meanwhile(key: str, tags: list[str], building: str, wait: float) -> tuple[bool, Any]:
    """(True, the entry's value) once the builder has stored it; (False, None) when the builder
    is gone without storing one, or after `wait` seconds."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(WAIT_POLL_SECONDS)
        found = cache.get_many([key, building])
        entry = found.get(key)
        if entry is not None and entry[0] == tags:
            return True, entry[1]
        if building not in found:
            return False, None
    return False, None


def _replica_has_replayed(tags: list[str]) -> bool:
    """Whether the replica has replayed every write that set `tags`. A tag without a recorded
    position (new, evicted, its commit's position lost, its UNCOMMITTED marker expired) gets the
    primary's current one: read after the tag was read, so after it was set."""
    if not replica_available():
        return False
    names = [_position_key(tag) for tag in tags]
    try:
        positions = cache.get_many(names)
    except Exception:
        logger.warning("representation cache unreachable", exc_info=True)
        return False
    if UNCOMMITTED in positions.values():
        return False
    missing = [name for name in names if name not in positions]
    if missing:
        try:
            now = primary_wal_position()
        except DatabaseError:
            logger.warning("primary's WAL position unreadable", exc_info=True)
            return False
        if now is None:
            return False
        positions.update(dict.fromkeys(missing, now))
        try:
            cache.set_many(dict.fromkeys(missing, now), GENERATION_SECONDS)
        except Exception:  # the next miss reads it again
            logger.warning("representation cache unreachable", exc_info=True)
    return replica_replayed(max(positions.values()))


def changed(generations: Iterable[str]) -> None:
    """The state behind `generations` changed in the current transaction: their entries are
    replaced (now, and again at the commit) and, with an edge in front (EDGE_PURGE_URLS), their
    keys purged after the commit (core.edge_purge's outbox row joins the transaction)."""
    names = list(generations)
    if settings.EDGE_PURGE_URLS:
        edge_purge.record(edge_keys(names))

    def renew(*, committed: bool) -> list[str]:
        tags = {name: uuid.uuid4().hex for name in names}
        try:
            if not committed and replica_configured():
                # Set first, so that a reader who finds a tag finds this with it. For a while
                # only: a rollback leaves the tags standing.
                markers = dict.fromkeys(map(_position_key, tags.values()), UNCOMMITTED)
                cache.set_many(markers, MARKER_SECONDS)
            cache.set_many(tags, GENERATION_SECONDS)
        except Exception:  # entries then expire by REPRESENTATION_CACHE_SECONDS
            logger.warning("representation cache unreachable; not invalidated", exc_info=True)
            return []
        return list(tags.values())

    def renew_at_commit() -> None:
        tags = renew(committed=True)
        # Read after the tags are set: past this commit and every earlier one, whichever order
        # concurrent writers' renewals land in (the replica builds for tags at this position).
        try:
            position = primary_wal_position() if tags else None
        except DatabaseError:  # a reader reads it instead
            logger.warning("primary's WAL position unreadable after a commit", exc_info=True)
            return
        if position is None:
            return
        try:
            cache.set_many(dict.fromkeys(map(_position_key, tags), position), GENERATION_SECONDS)
        except Exception:  # a reader reads it instead
            logger.warning("representation cache unreachable", exc_info=True)

    renew(committed=False)
    transaction.on_commit(renew_at_commit)


def article_changed(*, article_id: int, blog_id: int) -> None:
    """The article, its blog's articles, and its comments (they answer 410 with it gone)."""
    changed(
        [
            article_generation(article_id),
            blog_articles_generation(blog_id),
            articles_generation(),
            article_comments_generation(article_id),
        ]
    )


def blog_changed(*, blog_id: int) -> None:
    """The blog itself (its title is in every article's doc:blog link and in the blog list) or
    its articles in bulk."""
    changed(
        [
            blog_generation(blog_id),
            blog_articles_generation(blog_id),
            articles_generation(),
            blogs_generation(),
        ]
    )
