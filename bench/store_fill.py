"""The database store (core_store, PostgreSQL) filled with other clients' entries, for the rows
that check a request costs the same in a full store as in an empty one (issue 26).

The entries look like the store's own: rate-limit windows, idempotency records and cached
representations, with values of the size the service stores (pickles of real answers), all
expiring between one hour and a day after the fill, so that every one is live while the rows
run. None of them is a key the service under load uses: rate limits of clients in 2001:db8::/32
(the documentation prefix; the load comes from 127.0.0.1) at the default 600/60s (the bench runs
at 1000000/1s), idempotency records of token 0 (no token has that id), representations for hosts
under `.bench.invalid`. `empty()` deletes exactly those shapes, so the store keeps whatever the
service had in it, and compacts the table again (VACUUM FULL, ANALYZE).
"""

from __future__ import annotations

import hashlib
import pickle
import time
import uuid
from dataclasses import dataclass

from bench.prepare import libpq

TABLE = "core_store"
DEFAULT_ENTRIES = 500_000  # issue 26: "with 500,000 entries in the shared store"
# Of every 20 entries: 10 rate-limit windows, 2 idempotency records, 7 article representations,
# 1 page of 10 (from the bench's answers: 0.8 kB, 0.7 kB and 5.1 kB; the service's own entries,
# which also pickle the validators' class, are 0.85 to 1 kB and 5.3 to 6.7 kB).
_KEY = """CASE
    WHEN b < 10 THEN ':1:ratelimit:v2:read:600/60s:2001:db8::' || to_hex(i)
    WHEN b < 12 THEN ':1:idempotency:0:' || encode(sha256(('bench-fill:' || i)::bytea), 'hex')
    WHEN b < 19 THEN ':1:rep:http://fill-' || (i %% 50) || '.bench.invalid/:hal:article:1:' || i
    ELSE ':1:rep:http://fill-' || (i %% 50) || '.bench.invalid/:hal:articles:1:' || i || ':10'
END"""
FILL_SQL = f"""
INSERT INTO {TABLE} (cache_key, value, number, expires)
SELECT {_KEY},
    CASE WHEN b < 10 THEN NULL WHEN b < 12 THEN %(idempotency)s
         WHEN b < 19 THEN %(article)s ELSE %(page)s END,
    CASE WHEN b < 10 THEN 1 + i %% 600 END,
    %(now)s + 3600 + i %% 82800
FROM (SELECT i, i %% 20 AS b FROM generate_series(1, %(entries)s) AS i) AS numbers
"""  # noqa: S608 (no input: constants only)
# Exactly the shapes above (a leftover of an interrupted run of any size goes too); run without
# parameters, so `%` is LIKE's own.
EMPTY_SQL = f"""
DELETE FROM {TABLE} WHERE cache_key LIKE ':1:ratelimit:v2:read:600/60s:2001:db8::%'
    OR cache_key LIKE ':1:idempotency:0:%'
    OR cache_key LIKE ':1:rep:http://fill-%.bench.invalid/:%'
"""  # noqa: S608


def samples(article: dict, page: dict) -> dict[str, bytes]:
    """Values shaped like the store's own, from a real article and page of 10: a cached
    representation is (generation tags, (validators, document)); an idempotency record is
    the finished POST's answer."""

    def tags() -> list[str]:
        return [uuid.uuid4().hex, uuid.uuid4().hex]

    validators = ('"' + hashlib.sha256(b"bench").hexdigest()[:32] + '"', "Wed, 25 Nov 2026")
    return {
        "article": pickle.dumps((tags(), (validators, article)), pickle.HIGHEST_PROTOCOL),
        "page": pickle.dumps((tags(), (validators, page)), pickle.HIGHEST_PROTOCOL),
        "idempotency": pickle.dumps(
            {
                "state": "done",
                "fingerprint": hashlib.sha256(b"bench-fill").hexdigest(),
                "status": 201,
                "data": article,
                "headers": {"Location": "http://fill.bench.invalid/", "ETag": validators[0]},
            },
            pickle.HIGHEST_PROTOCOL,
        ),
    }


@dataclass
class StoreFill:
    """`entries` filler entries in the store of the database at `url`, in or out."""

    url: str
    entries: int
    values: dict[str, bytes]
    filled: bool = False

    def _connect(self):
        import psycopg

        return psycopg.connect(libpq(self.url), autocommit=True, connect_timeout=3)

    def fill(self) -> float:
        """One INSERT … SELECT generate_series, then ANALYZE; the seconds it took."""
        started = time.monotonic()
        with self._connect() as connection:
            connection.execute(
                FILL_SQL, {**self.values, "now": time.time(), "entries": self.entries}
            )
            self.filled = True
            connection.execute(f"ANALYZE {TABLE}")
        return time.monotonic() - started

    def empty(self) -> float:
        """The filler out again, the table compacted and analysed; the seconds it took."""
        started = time.monotonic()
        with self._connect() as connection:
            connection.execute(EMPTY_SQL)
            self.filled = False
            connection.execute(f"VACUUM (FULL, ANALYZE) {TABLE}")
        return time.monotonic() - started

    def ensure(self, filled: bool) -> str | None:
        """The store filled or not; a line saying what was done, None when nothing was."""
        if filled == self.filled:
            return None
        if filled:
            return f"store filled with {self.entries:,} entries in {self.fill():.1f} s"
        return f"store emptied in {self.empty():.1f} s"

    def count(self) -> tuple[int, int]:
        """(filler entries, all entries) in the table now."""
        with self._connect() as connection:
            total = connection.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]  # noqa: S608
            filler = connection.execute(
                EMPTY_SQL.replace("DELETE FROM", "SELECT COUNT(*) FROM", 1)
            ).fetchone()[0]
        return filler, total
