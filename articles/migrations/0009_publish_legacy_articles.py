"""Legacy articles become published ones: published_at = created_at, and a slug unique in their
blog made from the title (docs/decisions/publishing.md, "Slugs and tags").

PostgreSQL: a few set-based statements whatever the number of rows (a temporary table of the
slugs, a pass that suffixes duplicates, one UPDATE). The SQL slug follows Django's slugify for
ASCII titles; accented Latin letters lose their accent through translate() (slugify's NFKD), other
non-ASCII letters are dropped. SQLite: a Python loop with slugify itself.
"""

from django.db import migrations
from django.db.models import F
from django.utils.text import slugify

SLUG_BASE_MAX = 208
FALLBACK = "article"
_ACCENTED = "àáâãäåāăąçćčďèéêëēęěìíîïīñńňòóôõöōőřśšşťùúûüūůűýÿźżž"
_PLAIN = "aaaaaaaaacccdeeeeeeeiiiiinnnooooooorssstuuuuuuuyyzzz"
assert len(_ACCENTED) == len(_PLAIN)

# The base slug of a title, as slugify makes it: lower case, no accent, only [a-z0-9_ -] kept,
# runs of spaces and hyphens as one hyphen, no leading or trailing "-" or "_".
_SQL_BASE = rf"""
    coalesce(nullif(btrim(left(btrim(regexp_replace(regexp_replace(
        translate(lower(title), '{_ACCENTED}', '{_PLAIN}'),
        '[^a-z0-9_\s-]', '', 'g'), '[-\s]+', '-', 'g'), '-_'), {SLUG_BASE_MAX}), '-_'), ''),
        '{FALLBACK}')
"""


def _postgresql(cursor) -> None:
    cursor.execute(
        f"""
        CREATE TEMPORARY TABLE legacy_slug ON COMMIT DROP AS
        SELECT id, blog_id, {_SQL_BASE} AS base FROM articles_article WHERE slug = ''
        """
    )
    # The first of each (blog, base) by id keeps the base, the others get -2, -3...
    cursor.execute(
        """
        CREATE TEMPORARY TABLE legacy_slug_final ON COMMIT DROP AS
        SELECT id, blog_id,
               CASE WHEN n = 1 THEN base ELSE base || '-' || n END AS slug
        FROM (SELECT id, blog_id, base,
                     row_number() OVER (PARTITION BY blog_id, base ORDER BY id) AS n
              FROM legacy_slug) numbered
        """
    )
    # A suffixed slug can meet another title's own (two "Note" and one "Note 2"), or a slug
    # already set: such rare rows take their id as a further suffix until none is left.
    while True:
        cursor.execute(
            """
            UPDATE legacy_slug_final f SET slug = f.slug || '-' || f.id
            FROM (SELECT id FROM (
                    SELECT id, row_number() OVER (PARTITION BY blog_id, slug ORDER BY id) AS n
                    FROM (SELECT id, blog_id, slug FROM legacy_slug_final
                          UNION ALL
                          SELECT 0, blog_id, slug FROM articles_article WHERE slug <> ''
                          UNION ALL
                          SELECT 0, blog_id, slug FROM articles_articleslug) everyone
                  ) ranked WHERE n > 1 AND id <> 0) dup
            WHERE f.id = dup.id
            """
        )
        if not cursor.rowcount:
            break
    cursor.execute(
        """
        UPDATE articles_article a
        SET slug = f.slug, published_at = coalesce(a.published_at, a.created_at)
        FROM legacy_slug_final f WHERE a.id = f.id
        """
    )
    cursor.execute(
        "UPDATE articles_article SET published_at = created_at WHERE published_at IS NULL"
    )


def _python(apps) -> None:
    Article = apps.get_model("articles", "Article")
    ArticleSlug = apps.get_model("articles", "ArticleSlug")
    taken: dict[int, set[str]] = {}
    for blog_id, slug in Article.objects.exclude(slug="").values_list("blog_id", "slug"):
        taken.setdefault(blog_id, set()).add(slug)
    for blog_id, slug in ArticleSlug.objects.values_list("blog_id", "slug"):
        taken.setdefault(blog_id, set()).add(slug)
    batch = []
    for article in Article.objects.filter(slug="").order_by("id").only(
        "id", "blog_id", "title", "created_at", "published_at"
    ).iterator(chunk_size=2_000):
        base = slugify(article.title)[:SLUG_BASE_MAX].strip("-_") or FALLBACK
        blog_taken = taken.setdefault(article.blog_id, set())
        slug, number = base, 1
        while slug in blog_taken:
            number += 1
            slug = f"{base}-{number}"
        blog_taken.add(slug)
        article.slug = slug
        article.published_at = article.published_at or article.created_at
        batch.append(article)
        if len(batch) >= 2_000:
            Article.objects.bulk_update(batch, ["slug", "published_at"])
            batch = []
    if batch:
        Article.objects.bulk_update(batch, ["slug", "published_at"])
    Article.objects.filter(published_at__isnull=True).update(
        published_at=F("created_at")
    )


def forwards(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            _postgresql(cursor)
    else:
        _python(apps)


class Migration(migrations.Migration):
    dependencies = [("articles", "0008_db_defaults")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
