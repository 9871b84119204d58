"""A cache of the API's hot representations, invalidated by generations
(docs/decisions/representation-cache.md; built from the primary: docs/decisions/read-replica.md).
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
    """The value stored under `key` while `generations` stand, else `build()` (stored then)."""
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
    except Exception:  # the cache is down: serve from the database
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
