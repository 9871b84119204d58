"""Migration 0008 (issue 29): legacy articles get published_at = created_at and a slug unique in
their blog, on SQLite (slugify in Python) and PostgreSQL (set-based SQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("articles", "0008_db_defaults")]
AFTER = [("articles", "0009_publish_legacy_articles")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_legacy_articles_are_published_with_unique_slugs():
    apps = migrate(BEFORE)
    try:
        Blog = apps.get_model("blogs", "Blog")
        Article = apps.get_model("articles", "Article")
        one = Blog.objects.create(title="One", description="")
        two = Blog.objects.create(title="Two", description="")
        start = timezone.now() - timedelta(days=3)
        titles = [
            (one, "Note"),
            (one, "Note"),
            (one, "Note 2"),  # its own slug is the second "Note"'s suffixed one
            (one, "Café déjà vu!"),
            (one, "日本語"),
            (one, "  --Hello__ world--  "),
            (two, "Note"),
        ]
        ids = [
            Article.objects.create(
                blog=blog, title=title, created_at=start + timedelta(minutes=n)
            ).pk
            for n, (blog, title) in enumerate(titles)
        ]

        apps = migrate(AFTER)
        Article = apps.get_model("articles", "Article")
        rows = {a.pk: a for a in Article.objects.filter(pk__in=ids)}
        slugs = [rows[pk].slug for pk in ids]
        assert slugs[0] == "note"
        assert slugs[3] == "cafe-deja-vu"
        assert slugs[4] == "article"
        assert slugs[5] == "hello__-world"
        assert slugs[6] == "note"  # another blog
        blog_one = slugs[:6]
        assert len(set(blog_one)) == 6, blog_one
        assert {slugs[1], slugs[2]} >= {"note-2"}
        assert all(a.published_at == a.created_at for a in rows.values())
    finally:
        migrate(executor_leaf())


def executor_leaf():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()
