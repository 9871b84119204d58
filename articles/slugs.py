"""An article's slug: made from its title by Django's slugify (ASCII, as the model's SlugField
validates), unique in its blog among the current slugs and the old ones (ArticleSlug), by a
"-2", "-3"... suffix (docs/decisions/publishing.md, "Slugs and tags")."""

from __future__ import annotations

import re
import secrets

from django.db import connections, router
from django.utils.text import slugify

from articles.models import MAX_ID, SLUG_MAX_LENGTH, Article, ArticleSlug

# What a slug given by a client (or a tag's slug) may be: what slugify makes (lower-case ASCII
# letters, digits, "_" and "-"), not starting or ending with "-".
SLUG_PATTERN = re.compile(r"[a-z0-9_]+(?:-+[a-z0-9_]+)*")
_BASE_MAX_LENGTH = SLUG_MAX_LENGTH - 12  # room left for a "-<n>" suffix
FALLBACK = "article"


def slug_base(title: str) -> str:
    """The slug a title makes before any suffix; "article" when it has no letter or digit."""
    return slugify(title)[:_BASE_MAX_LENGTH].strip("-_") or FALLBACK


def slug_is_valid(slug: str, max_length: int = SLUG_MAX_LENGTH) -> bool:
    return 0 < len(slug) <= max_length and SLUG_PATTERN.fullmatch(slug) is not None


def slug_owner(*, blog_id: int, slug: str) -> int | None:
    """The id of the article the slug leads to in the blog (its current or an old slug)."""
    if blog_id > MAX_ID:  # names no blog, and must not reach the database
        return None
    current = Article.objects.filter(blog_id=blog_id, slug=slug).values_list("pk", flat=True)
    old = ArticleSlug.objects.filter(blog_id=blog_id, slug=slug).values_list(
        "article_id", flat=True
    )
    found = current.order_by().union(old.order_by(), all=True)
    return next(iter(found), None)


def slug_unique(*, blog_id: int, title: str) -> str:
    """A slug from the title, free in the blog: the base, else base-2 or base-3, whichever is
    free first; past them (a title written three times and more) base-<6 random hex digits>.
    One statement reads which of them are taken, so a title written a thousand times costs
    what it costs the first time. Called under the blog's row lock, so what it finds free is
    still free at the INSERT."""
    base = slug_base(title)
    numbered = [base, *(f"{base}-{number}" for number in range(2, _NUMBERED + 1))]
    while True:
        spare = f"{base}-{secrets.token_hex(3)}"
        taken = _taken(blog_id, slugs=[*numbered, spare])
        free = next((slug for slug in [*numbered, spare] if slug not in taken), None)
        if free is not None:
            return free
        numbered = []  # all taken: only a new random one is worth another look


# base, base-2 and base-3. Each candidate is one equality in the statement (see _taken): more of
# them would cost more to plan than they save (0.2 ms for these four, 1.9 ms for twenty-one).
_NUMBERED = 3


def _taken(blog_id: int, *, slugs: list[str]) -> set[str]:
    """Which of `slugs` the blog's articles or old slugs hold, in one statement: an equality on
    both columns of a unique index per slug and table. An `IN` list would be planned from the
    statistics, and a blog they saw empty (a new blog, a first import) would then be read whole
    on every create until the next ANALYZE; an equality is the unique index's one lookup
    whatever they say."""
    articles, old = Article._meta.db_table, ArticleSlug._meta.db_table
    # Table names are the models', the values parameters.
    arm = "SELECT slug FROM {table} WHERE blog_id = %s AND slug = %s"
    sql = " UNION ALL ".join(arm.format(table=table) for table in (articles, old) for _ in slugs)
    params = [value for _ in (articles, old) for slug in slugs for value in (blog_id, slug)]
    alias = router.db_for_write(Article)
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0] for row in cursor.fetchall()}
