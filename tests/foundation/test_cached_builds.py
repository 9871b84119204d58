"""core.representations.cached with `wait`: what many callers ask for at once is built once, and
a caller never waits on a builder that keeps nothing or fails."""

from __future__ import annotations

import threading
import time

import pytest

from core import representations

LOCAL = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def local_cache(settings):
    """The process's own cache: shared by the threads below, as Redis is by a server's."""
    settings.CACHES = LOCAL
    from django.core.cache import cache

    cache.clear()


def at_once(callers: int, call) -> tuple[list, list[BaseException], float]:
    """`call()` from `callers` threads started together: their results, their errors, seconds."""
    results, errors = [], []
    start = threading.Barrier(callers)

    def run() -> None:
        start.wait()
        try:
            results.append(call())
        except Exception as error:  # reported to the test
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(callers)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results, errors, time.monotonic() - began


def test_what_many_ask_for_at_once_is_built_once(local_cache):
    builds = []

    def build() -> str:
        builds.append(1)
        time.sleep(0.3)
        return "ranking"

    results, errors, _ = at_once(
        4, lambda: representations.cached("search:k", ["gen:g"], build, wait=5)
    )

    assert (results, errors, len(builds)) == (["ranking"] * 4, [], 1)
    # Kept: the next caller builds nothing.
    assert representations.cached("search:k", ["gen:g"], build, wait=5) == "ranking"
    assert len(builds) == 1


def test_a_new_generation_is_built_again(local_cache, db):
    builds = []

    def build() -> int:
        builds.append(1)
        return len(builds)

    assert representations.cached("search:k", ["gen:g"], build, wait=5) == 1
    representations.changed(["gen:g"])
    assert representations.cached("search:k", ["gen:g"], build, wait=5) == 2


def test_callers_build_themselves_when_the_builder_keeps_nothing(local_cache):
    builds = []

    def build() -> str:
        builds.append(1)
        time.sleep(0.3)
        return "narrow"

    results, errors, seconds = at_once(
        3,
        lambda: representations.cached(
            "search:k", ["gen:g"], build, keep=lambda value: False, wait=10
        ),
    )

    assert (results, errors) == (["narrow"] * 3, [])
    assert len(builds) == 3
    assert seconds < 5  # they stopped waiting when the builder was done, not after 10 s


def test_callers_build_themselves_when_the_builder_fails(local_cache):
    builds = []

    def build() -> str:
        builds.append(1)
        time.sleep(0.3)
        if len(builds) == 1:
            raise RuntimeError("statement cancelled")
        return "ranking"

    results, errors, seconds = at_once(
        3, lambda: representations.cached("search:k", ["gen:g"], build, wait=10)
    )

    assert [str(error) for error in errors] == ["statement cancelled"]
    assert results == ["ranking", "ranking"]
    assert seconds < 5


def test_an_entry_under_older_generations_is_refreshed_not_built_again(local_cache, db):
    """With `refresh`, an entry the generations have moved past is handed to it: what it returns
    is served and kept under the new generations, None has the value built again, and an entry
    under the current generations is served without it."""
    builds, refreshes = [], []

    def build() -> str:
        builds.append(1)
        return f"built {len(builds)}"

    def refresh(value: str) -> str | None:
        refreshes.append(value)
        return None if value.endswith("!") else value + "!"

    def ask() -> str:
        return representations.cached("rank:k", ["gen:g"], build, refresh=refresh, seconds=60)

    assert ask() == "built 1"
    assert ask() == "built 1" and refreshes == []  # current: as it is
    representations.changed(["gen:g"])
    assert ask() == "built 1!" and refreshes == ["built 1"]
    assert ask() == "built 1!" and len(refreshes) == 1  # kept under the new generation
    representations.changed(["gen:g"])
    assert ask() == "built 2" and refreshes[-1] == "built 1!"  # refused: built again
    assert builds == [1, 1]
