"""What each write did to the articles a search can see, for a search's kept ranking to be carried
over it (PostgreSQL only; docs/decisions/search.md, "Carried over the writes").

`articles_searchchange` gets one row per article a statement inserts, deletes or updates in a way
a search sees (its text, its deletion, its blog, the columns it can be sorted by): the article, its
blog and, for an update or delete, whether it was live and its search vector before. `txid` is the
writing transaction, so that a reader holding a ranking and the snapshot it was taken in knows
exactly which changes the ranking has not seen (pg_visible_in_snapshot), whatever order the
writers committed in. Triggers, not the services, write them: every path that writes the table
(the services, the admin, seed_bench's SQL, a migration) is covered. A statement of more than 64
rows, and a TRUNCATE, leave one row with no article: a ranking taken before it is ranked again.
Rows are dropped an hour after they were written (articles.tasks.forget_search_changes).
"""

from django.db import migrations

CHANGES_ONE_BY_ONE = 64


# A trigger function that records the changes `record` (an INSERT ... SELECT) selects from the
# statement's transition table `rows`, one by one, or past CHANGES_ONE_BY_ONE rows one change
# naming no article. Filled with fixed text only.
_RECORDING = """
    CREATE OR REPLACE FUNCTION {function}() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF (SELECT count(*) FROM (SELECT 1 FROM {rows} LIMIT {limit}) r) > {one_by_one} THEN
            INSERT INTO articles_searchchange DEFAULT VALUES;
        ELSE
            {record};
        END IF;
        RETURN NULL;
    END $$
    """


def _recording(function: str, rows: str, record: str) -> str:
    return _RECORDING.format(
        function=function,
        rows=rows,
        record=record,
        limit=CHANGES_ONE_BY_ONE + 1,
        one_by_one=CHANGES_ONE_BY_ONE,
    )


FORWARD = [
    """
    CREATE TABLE IF NOT EXISTS articles_searchchange (
        id bigserial PRIMARY KEY,
        txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        article_id bigint,
        blog_id bigint,
        old_live boolean NOT NULL DEFAULT false,
        old_vector tsvector,
        changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )
    """,
    "CREATE INDEX IF NOT EXISTS articles_searchchange_txid ON articles_searchchange (txid)",
    _recording(
        "articles_search_inserted",
        "new_rows",
        "INSERT INTO articles_searchchange (article_id, blog_id)"
        " SELECT id, blog_id FROM new_rows ORDER BY id",
    ),
    # Only an update a search can see: its text, its deletion, its blog, the columns of its orders.
    _recording(
        "articles_search_updated",
        "new_rows",
        """INSERT INTO articles_searchchange (article_id, blog_id, old_live, old_vector)
            SELECT o.id, o.blog_id, o.deleted_at IS NULL, o.search_vector
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE (o.search_vector, o.deleted_at, o.blog_id, o.title, o.created_at, o.updated_at)
                IS DISTINCT FROM
                (n.search_vector, n.deleted_at, n.blog_id, n.title, n.created_at, n.updated_at)
            ORDER BY o.id""",
    ),
    _recording(
        "articles_search_deleted",
        "old_rows",
        "INSERT INTO articles_searchchange (article_id, blog_id, old_live, old_vector)"
        " SELECT id, blog_id, deleted_at IS NULL, search_vector FROM old_rows ORDER BY id",
    ),
    """
    CREATE OR REPLACE FUNCTION articles_search_truncated() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO articles_searchchange DEFAULT VALUES;
        RETURN NULL;
    END $$
    """,
    "DROP TRIGGER IF EXISTS articles_search_inserted ON articles_article",
    """
    CREATE TRIGGER articles_search_inserted AFTER INSERT ON articles_article
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION articles_search_inserted()
    """,
    "DROP TRIGGER IF EXISTS articles_search_updated ON articles_article",
    """
    CREATE TRIGGER articles_search_updated AFTER UPDATE ON articles_article
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION articles_search_updated()
    """,
    "DROP TRIGGER IF EXISTS articles_search_deleted ON articles_article",
    """
    CREATE TRIGGER articles_search_deleted AFTER DELETE ON articles_article
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION articles_search_deleted()
    """,
    "DROP TRIGGER IF EXISTS articles_search_truncated ON articles_article",
    """
    CREATE TRIGGER articles_search_truncated AFTER TRUNCATE ON articles_article
    FOR EACH STATEMENT EXECUTE FUNCTION articles_search_truncated()
    """,
]
BACKWARD = [
    "DROP TRIGGER IF EXISTS articles_search_truncated ON articles_article",
    "DROP TRIGGER IF EXISTS articles_search_deleted ON articles_article",
    "DROP TRIGGER IF EXISTS articles_search_updated ON articles_article",
    "DROP TRIGGER IF EXISTS articles_search_inserted ON articles_article",
    "DROP FUNCTION IF EXISTS articles_search_truncated()",
    "DROP FUNCTION IF EXISTS articles_search_deleted()",
    "DROP FUNCTION IF EXISTS articles_search_updated()",
    "DROP FUNCTION IF EXISTS articles_search_inserted()",
    "DROP TABLE IF EXISTS articles_searchchange",
]


def _on_postgresql(statements: list[str]):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("articles", "0009_publish_legacy_articles")]

    operations = [migrations.RunPython(_on_postgresql(FORWARD), _on_postgresql(BACKWARD))]
