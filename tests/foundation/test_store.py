"""The database store (core.store.DatabaseStore) through Django's cache API, on the test
database: the backend `make run` and a deployment without Redis use."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from core.store import DatabaseStore

pytestmark = pytest.mark.django_db


@pytest.fixture
def store() -> DatabaseStore:
    return DatabaseStore("core_store", {"OPTIONS": {"MAX_ENTRIES": 1000}})


def rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM core_store")
        return cursor.fetchone()[0]


def test_values_of_every_kind_come_back_as_they_went_in(store):
    values = {"int": 7, "big": 2**70, "bool": True, "text": "é", "tuple": (["a"], {"b": 1.5})}
    store.set_many(values)
    assert store.get_many([*values, "missing"]) == values
    assert store.get("bool") is True
    assert store.get("missing", "default") == "default"
    assert store.has_key("int") and not store.has_key("missing")


def test_add_takes_only_a_free_or_expired_key(store):
    assert store.add("key", "first")
    assert not store.add("key", "second")
    assert store.get("key") == "first"
    store.set("old", "gone", timeout=-1)
    assert store.get("old") is None
    assert store.add("old", "new")
    assert store.get("old") == "new"


def test_incr_adds_in_the_database_and_refuses_what_is_not_a_number(store):
    store.set("n", 1)
    assert store.incr("n", 5) == 6
    assert store.get("n") == 6
    store.set("text", "x")
    with pytest.raises(ValueError):
        store.incr("text")
    with pytest.raises(ValueError):
        store.incr("missing")


def test_count_hits_opens_a_window_counts_in_it_and_opens_the_next_when_it_ends(store):
    before = time.time()
    started, hits = store.count_hits("limit", 1, 60)
    assert before <= started <= time.time() and hits == 1
    assert store.count_hits("limit", 3, 60) == (started, 4)
    with connection.cursor() as cursor:  # the window ends
        cursor.execute("UPDATE core_store SET expires = %s", [time.time() - 1])
    again, hits = store.count_hits("limit", 2, 60)
    assert again > started and hits == 2


def test_touch_delete_and_clear(store):
    store.set("a", 1, timeout=1)
    assert store.touch("a", timeout=None)
    assert not store.touch("missing")
    with connection.cursor() as cursor:
        cursor.execute("SELECT expires FROM core_store")
        assert cursor.fetchone()[0] > time.time() + 3600 * 24 * 365 * 1000
    assert store.delete("a") and not store.delete("a")
    store.set_many({"b": 1, "c": 2})
    assert store.delete_many(["b", "c", "d"])
    store.set("e", 1)
    store.clear()
    assert rows() == 0


def test_cull_removes_the_expired_then_the_soonest_to_expire_past_max_entries(store):
    store.set_many({f"old{n}": n for n in range(30)}, timeout=-1)
    store.set_many({f"live{n}": n for n in range(1010)}, timeout=60)
    store.set("last", 1, timeout=3600)
    assert store.cull(batch=7) == 30 + 11
    assert rows() == 1000
    assert store.get("last") == 1


def test_cull_stops_after_its_batches(store):
    store.set_many({f"old{n}": n for n in range(30)}, timeout=-1)
    assert store.cull(batch=4, batches=3) == 12
    assert rows() == 18
