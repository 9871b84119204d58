"""An index per order of `sort` (issue 27): partial on the live articles, (blog, column, id), as
the id order's `article_live_blog_id_idx` (docs/decisions/deep-pages.md).

On PostgreSQL built CONCURRENTLY: on a table of millions of articles each build takes seconds
(about 5 to 10 s for 5,000,000 rows), and a plain CREATE INDEX would hold every write back
meanwhile. That cannot run in a transaction, hence `atomic = False`.
"""

from django.db import migrations, models
from django.db.models import Q

INDEXES = [
    models.Index(
        condition=Q(deleted_at__isnull=True),
        fields=["blog", column, "id"],
        name=f"article_live_blog_{name}_idx",
    )
    for column, name in (("created_at", "created"), ("updated_at", "updated"), ("title", "title"))
]


def _concurrently(schema_editor) -> dict:
    return {"concurrently": True} if schema_editor.connection.vendor == "postgresql" else {}


def add_indexes(apps, schema_editor) -> None:
    article = apps.get_model("articles", "Article")
    for index in INDEXES:
        schema_editor.add_index(article, index, **_concurrently(schema_editor))


def remove_indexes(apps, schema_editor) -> None:
    article = apps.get_model("articles", "Article")
    for index in INDEXES:
        schema_editor.remove_index(article, index, **_concurrently(schema_editor))


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("articles", "0005_drop_cache_table"), ("blogs", "0001_initial")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.AddIndex("article", index) for index in INDEXES],
            database_operations=[migrations.RunPython(add_indexes, remove_indexes)],
        )
    ]
