"""The table of the shared store that serves without Redis (core.store.DatabaseStore)."""

from __future__ import annotations

from django.db import models


class StoreEntry(models.Model):
    """One key: an integer in `number` (so that the database can count it), anything else
    pickled in `value`; `expires` in seconds since the epoch."""

    cache_key = models.TextField(primary_key=True)
    value = models.BinaryField(null=True)
    number = models.BigIntegerField(null=True)
    expires = models.FloatField(db_index=True)

    class Meta:
        db_table = "core_store"

    def __str__(self) -> str:
        return self.cache_key


class EdgePurge(models.Model):
    """An outbox row: the surrogate keys one write changed, written in its transaction, until
    every edge confirmed their purge (core.edge_purge)."""

    # Space-separated, as the purge request's header carries them.
    keys = models.TextField()
    created_at = models.DateTimeField()
    # When the relay may take the row: past the task's own attempt (or retry), or a relay's lease.
    next_attempt_at = models.DateTimeField(db_index=True)
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "core_edge_purge"

    def __str__(self) -> str:
        return self.keys
