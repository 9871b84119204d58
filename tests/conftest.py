"""The cast every test shares (healthchecks' hc/test.py style): named people with named rights.

- `alice`: an author of `blog` (blog 1 in the demo).
- `bob`: an author of `other_blog` only: a valid token, no right on `blog`.
- `editor`: staff with the article permissions, author of nothing.
- `outsider`: a valid token and no right anywhere.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User

from articles import services as article_services
from blogs import services as blog_services
from blogs.models import Blog

ARTICLE_PERMISSIONS = ("add_article", "change_article", "delete_article", "view_article")


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
        Permission.objects.filter(
            content_type__app_label="articles", codename__in=ARTICLE_PERMISSIONS
        )
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
def _fresh_cache():
    """Rate-limit counters and idempotency keys must not leak from one test into the next."""
    from django.core.cache import cache

    cache.clear()
    yield
