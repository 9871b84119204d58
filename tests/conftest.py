"""The cast every test shares (healthchecks' hc/test.py style): named people with named rights.

- `alice`: an author of `blog` (blog 1 in the demo).
- `bob`: an author of `other_blog` only: a valid token, no right on `blog`.
- `editor`: staff with the article (and comment, blog, token) permissions and "view user",
  author of nothing.
- `outsider`: a valid token and no right anywhere.
"""

from __future__ import annotations

import copy
import socket

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core.servers.basehttp import WSGIServer

from articles import services as article_services
from blogs import services as blog_services
from blogs.models import Blog

# Django's development server queues 10 connections; the concurrency tests (tests/rest/
# test_concurrency.py) open twenty and more at once, which the kernel would otherwise reset.
WSGIServer.request_queue_size = 128

DATABASE_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences"}


def pytest_collection_modifyitems(items):
    """With DATABASE_REPLICA_URL set, content reads outside a transaction go to the `replica`
    alias, the test database's mirror (config/settings/test.py): every test that may use the
    database may use that alias too, as Django asks of tests that use a mirror."""
    if "replica" not in settings.DATABASES:
        return
    for item in items:
        marker = item.get_closest_marker("django_db")
        if marker is None and not DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            continue
        kwargs = {**(marker.kwargs if marker else {}), "databases": ["default", "replica"]}
        item.add_marker(pytest.mark.django_db(*(marker.args if marker else ()), **kwargs), False)


EDITOR_PERMISSIONS = r"^(add|change|delete|view)_(article|comment|blog|accesstoken)$"


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", "alice@example.org", "alice-password")


@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", "bob@example.org", "bob-password")


@pytest.fixture
def outsider(db) -> User:
    return User.objects.create_user("outsider", "outsider@example.org", "outsider-password")


@pytest.fixture
def editor(db) -> User:
    user = User.objects.create_user(
        "editor", "editor@example.org", "editor-password", is_staff=True
    )
    user.user_permissions.set(
        [
            *Permission.objects.filter(
                content_type__app_label__in=["articles", "blogs"],
                codename__regex=EDITOR_PERMISSIONS,
            ),
            # To pick the user of a new token by name (the admin's autocomplete), as seed_demo.
            Permission.objects.get(content_type__app_label="auth", codename="view_user"),
        ]
    )
    return user


@pytest.fixture
def blog(alice) -> Blog:
    blog = Blog.objects.create(title="Alice's blog", description="Notes from Alice")
    blog.authors.add(alice)
    return blog


@pytest.fixture
def other_blog(bob) -> Blog:
    blog = Blog.objects.create(title="Bob's blog", description="Notes from Bob")
    blog.authors.add(bob)
    return blog


@pytest.fixture
def archived_blog(alice) -> Blog:
    blog = Blog.objects.create(title="Old blog", description="Kept for the record")
    blog.authors.add(alice)
    return blog_services.blog_archive(blog=blog)


@pytest.fixture
def token_for(db):
    """token_for(user) -> a plain token string for that user, as a client would hold it."""

    def issue(user: User, **kwargs) -> str:
        _, plain = blog_services.token_issue(user=user, name=kwargs.pop("name", "test"), **kwargs)
        return plain

    return issue


@pytest.fixture
def article(blog):
    return article_services.article_create(blog=blog, title="First post", content="Hello")


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    """Rate-limit counters and idempotency keys must not leak from one test into the next: the
    database store's entries go with each test's transaction, Redis's are cleared."""
    from django.core.cache import cache

    if settings.REDIS_URL:
        cache.clear()


@pytest.fixture
def unreachable_database(db):
    """The default database swapped for one that cannot be reached, for as long as the test runs.

    A real connection attempt fails (a closed port for PostgreSQL, a path that cannot exist for
    SQLite); nothing of ours is mocked.
    """
    from django.db import connections

    original = connections["default"]
    broken_settings = copy.deepcopy(original.settings_dict)
    if original.vendor == "sqlite":
        broken_settings["NAME"] = "/nonexistent-directory/for-tests/db.sqlite3"
    else:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        broken_settings.update(HOST="127.0.0.1", PORT=str(closed_port))
    broken = original.__class__(broken_settings, "default")
    connections["default"] = broken
    # A replica (in tests the mirror of the same database) is unreachable with it.
    replica = connections["replica"] if "replica" in connections else None  # noqa: SIM401
    if replica is not None:
        connections["replica"] = original.__class__(broken_settings, "replica")
    try:
        yield
    finally:
        broken.close()
        connections["default"] = original
        if replica is not None:
            connections["replica"].close()
            connections["replica"] = replica


@pytest.fixture
def chromium(tmp_path):
    """Headless Debian Chromium with every other host unresolvable (tests/support/browser.py)."""
    from tests.support.browser import headless_chromium

    yield from headless_chromium(tmp_path / "profile")
