"""The shared store: Django cache backends on which counting a hit is one atomic step
(docs/decisions/shared-cache-without-redis.md).

`DatabaseStore` serves without Redis, on the table core_store of the primary database. Every
operation is one statement; counters are added up by the database (`INSERT … ON CONFLICT DO
UPDATE … RETURNING`, on PostgreSQL and SQLite alike), never read and written back; nothing on the
request path counts or scans the table: expired entries go by `cull()`, a periodic task.

Both backends add `count_hits(key, amount, window)`: the hits of a fixed window that opens at its
first hit, counted in one round trip, returned as (start of the window, its hits with these).
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Iterable
from typing import Any

import django_redis.cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.db import DEFAULT_DB_ALIAS, connections

NEVER = 253402300799.0  # 9999-12-31T23:59:59Z: what an entry without a timeout expires at
_BIGINT = range(-(2**63), 2**63)


def _encode(value: Any) -> tuple[bytes | None, int | None]:
    if type(value) is int and value in _BIGINT:
        return None, value
    return pickle.dumps(value, pickle.HIGHEST_PROTOCOL), None


def _decode(value: bytes | None, number: int | None) -> Any:
    # Only this backend writes the table, from values the service itself stored (as Django's own
    # database cache does).
    return number if value is None else pickle.loads(value)  # noqa: S301


# Writes every column of the rows VALUES names, over a key that was there.
_UPSERT = (
    "INSERT INTO {table} (cache_key, value, number, expires) VALUES {rows} ON CONFLICT (cache_key)"
    " DO UPDATE SET value = excluded.value, number = excluded.number, expires = excluded.expires"
)


def _list(values: Iterable[Any]) -> str:
    """The placeholders of an SQL list of `values`."""
    return f"({', '.join('%s' for _ in values)})"


class DatabaseStore(BaseCache):
    """A cache on one table of the primary (LOCATION names it), in the caller's transaction."""

    def __init__(self, table: str, params: dict) -> None:
        super().__init__(params)
        self.table = table
        self.max_entries = int(params.get("OPTIONS", {}).get("MAX_ENTRIES", 1_000_000))

    def _run(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[tuple], int]:
        connection = connections[DEFAULT_DB_ALIAS]
        with connection.cursor() as cursor:
            cursor.execute(sql.format(table=connection.ops.quote_name(self.table)), list(params))
            rows = cursor.fetchall() if cursor.description else []
            return rows, cursor.rowcount

    def _expires(self, timeout: Any) -> float:
        expires = self.get_backend_timeout(timeout)
        return NEVER if expires is None else expires

    def _keys(self, keys: Iterable[str], version: int | None) -> dict[str, str]:
        return {self.make_and_validate_key(key, version=version): key for key in keys}

    def get_many(self, keys: Iterable[str], version: int | None = None) -> dict[str, Any]:
        names = self._keys(keys, version)
        if not names:
            return {}
        rows, _ = self._run(
            # Only placeholders are formatted into the statements (the table is quoted).
            f"SELECT cache_key, value, number FROM {{table}} WHERE cache_key IN {_list(names)}"  # noqa: S608
            " AND expires > %s",
            [*names, time.time()],
        )
        return {names[key]: _decode(value, number) for key, value, number in rows}

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        return self.get_many([key], version).get(key, default)

    def set_many(
        self, data: dict[str, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[str]:
        if data:
            expires = self._expires(timeout)
            params: list[Any] = []
            for key, value in data.items():
                params += [self.make_and_validate_key(key, version=version), *_encode(value)]
                params.append(expires)
            rows = ", ".join(["(%s, %s, %s, %s)"] * len(data))
            self._run(_UPSERT.replace("{rows}", rows), params)
        return []

    def set(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        self.set_many({key: value}, timeout, version)

    def add(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        # Takes the key only where it is free or expired, in the one statement.
        rows, _ = self._run(
            _UPSERT.replace("{rows}", "(%s, %s, %s, %s)")
            + " WHERE {table}.expires <= %s RETURNING cache_key",
            [
                self.make_and_validate_key(key, version=version),
                *_encode(value),
                self._expires(timeout),
                time.time(),
            ],
        )
        return bool(rows)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        rows, _ = self._run(
            "UPDATE {table} SET number = number + %s"
            " WHERE cache_key = %s AND expires > %s AND number IS NOT NULL RETURNING number",
            [delta, self.make_and_validate_key(key, version=version), time.time()],
        )
        if not rows:
            raise ValueError(f"Key '{key}' not found or not a number.")
        return rows[0][0]

    def count_hits(self, key: str, amount: int, window: int) -> tuple[float, int]:
        now = time.time()
        rows, _ = self._run(
            "INSERT INTO {table} (cache_key, value, number, expires) VALUES (%s, NULL, %s, %s) "
            "ON CONFLICT (cache_key) DO UPDATE SET"
            " number = CASE WHEN {table}.expires > %s"
            " THEN {table}.number + excluded.number ELSE excluded.number END,"
            " expires = CASE WHEN {table}.expires > %s"
            " THEN {table}.expires ELSE excluded.expires END"
            " RETURNING expires, number",
            [self.make_and_validate_key(key), amount, now + window, now, now],
        )
        expires, hits = rows[0]
        return expires - window, hits

    def touch(self, key: str, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        _, count = self._run(
            "UPDATE {table} SET expires = %s WHERE cache_key = %s AND expires > %s",
            [self._expires(timeout), self.make_and_validate_key(key, version=version), time.time()],
        )
        return count > 0

    def delete_many(self, keys: Iterable[str], version: int | None = None) -> bool:
        names = list(self._keys(keys, version))
        if not names:
            return False
        _, count = self._run(f"DELETE FROM {{table}} WHERE cache_key IN {_list(names)}", names)  # noqa: S608
        return count > 0

    def delete(self, key: str, version: int | None = None) -> bool:
        return self.delete_many([key], version)

    def clear(self) -> None:
        self._run("DELETE FROM {table}")

    def cull(self, *, batch: int = 10_000, batches: int = 50) -> int:
        """Deletes expired entries, then the soonest to expire past MAX_ENTRIES, in statements
        of at most `batch` rows and at most `batches` of them: a run's cost is bounded. Returns
        how many entries went."""
        removed = 0
        for _ in range(batches):
            _, count = self._run(
                "DELETE FROM {table} WHERE cache_key IN "
                "(SELECT cache_key FROM {table} WHERE expires <= %s LIMIT %s)",
                [time.time(), batch],
            )
            removed += count
            batches -= 1
            if count < batch:
                break
        if batches:
            # The one count of the table, off the request path.
            rows, _ = self._run("SELECT COUNT(*) FROM {table}")
            excess = rows[0][0] - self.max_entries
            for _ in range(batches):
                if excess <= 0:
                    break
                _, count = self._run(
                    "DELETE FROM {table} WHERE cache_key IN "
                    "(SELECT cache_key FROM {table} ORDER BY expires LIMIT %s)",
                    [min(excess, batch)],
                )
                removed += count
                excess -= count
        return removed


_REDIS_WINDOW = """
local started = redis.call('HGET', KEYS[1], 'start')
if not started then
    started = ARGV[1]
    redis.call('HSET', KEYS[1], 'start', started)
    redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return {started, redis.call('HINCRBY', KEYS[1], 'hits', ARGV[3])}
"""


class RedisStore(django_redis.cache.RedisCache):
    """django-redis's cache, counting a window's hits in one Lua script run by the server."""

    def count_hits(self, key: str, amount: int, window: int) -> tuple[float, int]:
        client = self.client.get_client(write=True)
        started, hits = client.eval(
            _REDIS_WINDOW, 1, self.make_and_validate_key(key), repr(time.time()), window, amount
        )
        return float(started), int(hits)
