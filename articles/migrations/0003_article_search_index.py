"""The GIN index of full-text search on PostgreSQL; nothing on SQLite (articles.search).

The expression is the one articles.search.search_vector() compiles to, so that the planner uses
the index for `search_vector() @@ websearch_to_tsquery(...)`; a test EXPLAINs a search to show
it (tests/rest/test_search.py).
"""

from django.db import migrations

INDEX = "article_search_idx"
CREATE = f"""
CREATE INDEX IF NOT EXISTS {INDEX} ON articles_article USING gin ((
    setweight(to_tsvector('english'::regconfig, COALESCE(title, '')), 'A')
    || setweight(to_tsvector('english'::regconfig, COALESCE(content, '')), 'B')
))
"""
DROP = f"DROP INDEX IF EXISTS {INDEX}"


def _on_postgresql(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("articles", "0002_cache_table")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
