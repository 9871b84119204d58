"""A cache of the API's hot representations (an article, a page of a blog's articles), so that a
hot article costs no SQL at all.

An entry holds what a read needs: the representation's data, its ETag and Last-Modified. It is
tagged with the *generations* of what it was built from (the article, the blog, the blog's list
of articles): random tokens in the cache, which the writes replace (`changed`) when they write
and again when they commit. An entry is used only while its tags are the current generations,
read together with it in one cache round trip, so every origin's and every page's entry of a
changed article or blog is dropped at once without knowing them. A reader that built an entry
from the old data while the write's transaction was open tagged it with a generation that the
commit replaces: it is never used.
With a read replica, what is stored is built from the primary (core.db_router): a replica
that has not yet replayed a commit would otherwise store the old data under the generation that
commit set, and it would be served as current after the write.
Entries expire after ENTRY_SECONDS in any case, which bounds what a lost invalidation (the cache
unreachable at that commit) can cost.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from core.db_router import reads_from_primary

logger = logging.getLogger(__name__)

ENTRY_SECONDS = 300
GENERATION_SECONDS = 24 * 3600


def article_generation(article_id: int) -> str:
    return f"rep:gen:article:{article_id}"


def blog_generation(blog_id: int) -> str:
    return f"rep:gen:blog:{blog_id}"


def blog_articles_generation(blog_id: int) -> str:
    return f"rep:gen:blog-articles:{blog_id}"


def cached(key: str, generations: list[str], build: Callable[[], Any]) -> Any:
    """The value stored under `key` while `generations` stand, else `build()` (stored then).

    A cache that cannot be reached is not a reason to fail a read: the value is built. On the
    database cache (no Redis) nothing is cached: its round trips cost more than the read."""
    if settings.CACHES["default"]["BACKEND"].endswith(".DatabaseCache"):
        return build()
    try:
        found = cache.get_many([key, *generations])
        tags = [found.get(name) for name in generations]
        if None in tags:
            # A generation not seen yet (or evicted): start it; whoever wins `add` sets it.
            for name, tag in zip(generations, tags, strict=True):
                if tag is None:
                    cache.add(name, uuid.uuid4().hex, GENERATION_SECONDS)
            tags = [cache.get(name) for name in generations]
        entry = found.get(key)
        if entry is not None and entry[0] == tags:
            return entry[1]
    except Exception:  # the cache is down: serve from the database (module docstring)
        logger.warning("representation cache unreachable", exc_info=True)
        return build()
    with reads_from_primary():
        value = build()
    try:
        cache.set(key, (tags, value), ENTRY_SECONDS)
    except Exception:
        logger.warning("representation cache unreachable", exc_info=True)
    return value


def changed(generations: Iterable[str]) -> None:
    """Every entry tagged with these generations is stale, now and once the current transaction
    commits."""
    names = list(generations)

    def renew() -> None:
        try:
            cache.set_many({name: uuid.uuid4().hex for name in names}, GENERATION_SECONDS)
        except Exception:  # entries then expire by ENTRY_SECONDS
            logger.warning("representation cache unreachable; not invalidated", exc_info=True)

    renew()
    transaction.on_commit(renew)


def article_changed(*, article_id: int, blog_id: int) -> None:
    changed([article_generation(article_id), blog_articles_generation(blog_id)])


def blog_changed(*, blog_id: int) -> None:
    """The blog itself (its title is in every article's doc:blog link) or its articles in bulk."""
    changed([blog_generation(blog_id), blog_articles_generation(blog_id)])
