"""Full-text search on PostgreSQL: a stored generated `search_vector` column and its GIN index;
nothing on SQLite (articles.search).

A stored column rather than an index on the expression: ranking reads each match's vector, and
an expression index would have it recomputed (`to_tsvector` of the whole article) for every
match, and again to recheck it. The model does not declare the column (SQLite has no tsvector):
articles.search names it, and every INSERT and UPDATE leaves it to PostgreSQL to compute.
Adding it rewrites the table once (about a minute for 1,000,000 articles).
"""

from django.db import migrations

FORWARD = [
    """
    ALTER TABLE articles_article ADD COLUMN IF NOT EXISTS search_vector tsvector
    GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, COALESCE(title, '')), 'A')
        || setweight(to_tsvector('english'::regconfig, COALESCE(content, '')), 'B')
    ) STORED
    """,
    "CREATE INDEX IF NOT EXISTS article_search_idx ON articles_article USING gin (search_vector)",
]
BACKWARD = [
    "DROP INDEX IF EXISTS article_search_idx",
    "ALTER TABLE articles_article DROP COLUMN IF EXISTS search_vector",
]


def _on_postgresql(statements: list[str]):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("articles", "0002_cache_table")]

    operations = [migrations.RunPython(_on_postgresql(FORWARD), _on_postgresql(BACKWARD))]
