"""The cache backends the service uses, each counting its calls for the request being served;
nothing changed but the count. A call is one call of Django's cache API as the code made it: a
backend's calls into its own API (DatabaseStore.get goes through get_many) are not counted again.
"""

from __future__ import annotations

from typing import Any

from core import store
from core.metrics.instruments import current_request

OPERATIONS = (
    "add",
    "get",
    "set",
    "touch",
    "delete",
    "get_many",
    "get_or_set",
    "has_key",
    "incr",
    "decr",
    "set_many",
    "delete_many",
    "clear",
    "count_hits",
    "incr_version",
    "decr_version",
)


class CountedCache:
    """Mixed in before a cache backend: each public operation counts once per outer call."""


def _counted(operation: str) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        inherited = getattr(super(CountedCache, self), operation)
        stats = current_request.get()
        if stats is None or stats.in_cache_call:
            return inherited(*args, **kwargs)
        stats.in_cache_call = True
        try:
            return inherited(*args, **kwargs)
        finally:
            stats.in_cache_call = False
            stats.cache_calls[operation] += 1

    call.__name__ = operation
    return call


for _operation in OPERATIONS:
    setattr(CountedCache, _operation, _counted(_operation))


class DatabaseStore(CountedCache, store.DatabaseStore):
    pass


class RedisCache(CountedCache, store.RedisStore):
    pass
