"""Bulk data for benchmarks: blog 1 with exactly N live articles, blog 2 empty. These writes
bypass the per-article services on purpose (one INSERT per article would take an hour for a
million rows), and keep their invariants by setting the blog's counter from a real count.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from articles.models import Article
from blogs.models import Blog
from core import representations

BENCH_BLOG_ID = 1
EMPTY_BLOG_ID = 2
AUTHOR_USERNAME = "alice"
BATCH_SIZE = 50_000
CONTENT = (
    "A benchmark article. Its text is a few sentences long, like a short post, so that a page "
    "of them weighs what a real page weighs. Nothing here is meant to be read."
)
# Each article's text also names a few topics out of these, so that a search finds some
# articles and not all of them: any one word is in about 3 articles in 100, two given words
# together in about 1 in 1,700 (the benchmark searches "harbour lantern": 593 of 1,000,000).
_TOPIC_WORDS = (
    "apple anchor autumn badger basket beacon bicycle blossom bridge candle canyon castle "
    "cellar cherry chimney cloud comet compass copper cottage desert dragon drum eagle "
    "ember falcon feather ferry forest fossil garden glacier granite harbour harvest "
    "hedgehog honey island ivory jasmine jungle kettle kitchen ladder lantern lemon "
    "lighthouse marble meadow mirror mountain needle nutmeg oak ocean orchard otter paddle "
    "parrot pebble pepper pillow pine planet pocket quarry quartz rabbit raven river "
    "saddle salmon sapphire shadow silver spider spruce squirrel stable storm sugar summit "
    "thunder timber tortoise tower tulip tunnel valley velvet village violin walnut "
    "whistle willow window winter yarn"
)
TOPICS = tuple(_TOPIC_WORDS.split())
TOPICS_PER_ARTICLE = 3


def article_content(number: int) -> str:
    """The same few sentences for every article, and TOPICS_PER_ARTICLE topics picked from the
    number (a fixed hash: the same number always gets the same topics)."""
    digest = hashlib.blake2b(str(number).encode(), digest_size=2 * TOPICS_PER_ARTICLE).digest()
    picked = [
        TOPICS[int.from_bytes(digest[2 * slot : 2 * slot + 2], "big") % len(TOPICS)]
        for slot in range(TOPICS_PER_ARTICLE)
    ]
    return f"{CONTENT} Topics: {', '.join(picked)}."


@dataclass(frozen=True)
class SeedResult:
    added: int
    removed: int
    live: int
    changed: bool


def article_title(number: int) -> str:
    return f"Benchmark article {number}"


def article_slug(number: int) -> str:
    """What articles.slugs makes of the title, without a query: the numbers are unique."""
    return f"benchmark-article-{number}"


@transaction.atomic
def blogs_seed_for_bench(*, articles: int) -> SeedResult:
    """Make blog 1 hold exactly `articles` live articles and blog 2 none; alice authors both.

    Idempotent: a second run with the same number changes nothing. Surplus articles are
    tombstoned (newest first), as a DELETE through the API would, so their ids answer 410.
    """
    if articles < 0:
        raise ValueError("the number of articles cannot be negative")
    now = timezone.now()
    alice = _author()
    bench_blog, created_bench = _blog(BENCH_BLOG_ID, "Benchmark blog", alice)
    empty_blog, created_empty = _blog(EMPTY_BLOG_ID, "Benchmark blog (empty)", alice)
    if created_bench or created_empty:
        reset_sequence(Blog)

    live = Article.objects.live().in_blog(BENCH_BLOG_ID)
    present = live.count()
    added = removed = 0
    if present < articles:
        added = articles - present
        _insert_articles(blog_id=BENCH_BLOG_ID, first_number=present + 1, count=added, at=now)
    elif present > articles:
        removed = _tombstone(live, keep=articles, at=now)
    emptied = _tombstone(Article.objects.live().in_blog(EMPTY_BLOG_ID), keep=0, at=now)

    changed = False
    for blog, touched in (
        (bench_blog, bool(added or removed or created_bench)),
        (empty_blog, bool(emptied or created_empty)),
    ):
        exact = Article.objects.live().in_blog(blog.pk).count()
        if touched or blog.article_count != exact:
            Blog.objects.filter(pk=blog.pk).update(
                article_count=exact, revision=F("revision") + 1, updated_at=now
            )
            representations.blog_changed(blog_id=blog.pk)
            changed = True
    if connection.vendor == "postgresql" and added:
        # Fresh statistics, so that the planner knows the blog is large right away.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Article._meta.db_table}")
    return SeedResult(added=added, removed=removed + emptied, live=articles, changed=changed)


def articles_vacuum_for_bench() -> bool:
    """VACUUM (ANALYZE) the articles table on PostgreSQL; False where it cannot run.

    Paging reads a page's ids from the partial (blog_id, id) index; that scan skips the entries
    before the page without touching the table only where the visibility map says the pages are
    all-visible, and only VACUUM sets it. Rows just written by COPY have none: the middle page of
    the 1,000,000-article blog then read 500,000 rows from the table (about 120 ms alone, 400 ms
    under load). Autovacuum would get there in time; the benchmark must not depend on when.
    VACUUM cannot run inside a transaction (a test's, for instance): it is then skipped.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM (ANALYZE) {Article._meta.db_table}")
    return True


def _author():
    user, created = get_user_model().objects.get_or_create(username=AUTHOR_USERNAME)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _blog(pk: int, title: str, author) -> tuple[Blog, bool]:
    blog = Blog.objects.filter(pk=pk).first()
    created = blog is None
    if created:
        blog = Blog(pk=pk, title=title, description="Data for the benchmark (seed_bench).")
        blog.save(force_insert=True)
    elif blog.archived:
        # The benchmark writes into both blogs.
        blog.archived = False
        blog.save(update_fields=["archived"])
    blog.authors.add(author)
    return blog, created


def reset_sequence(model) -> None:
    """Rows inserted with explicit ids leave PostgreSQL's sequence behind; catch it up."""
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [model]):
            cursor.execute(statement)


def _tombstone(live, *, keep: int, at: datetime) -> int:
    cutoff = live.order_by("id").values_list("id", flat=True)[keep : keep + 1].first()
    if cutoff is None:
        return 0
    # The slug goes with the tombstone here (not in an API delete): a later seed numbers new
    # articles from the live count again and gives them these titles' slugs.
    return live.filter(id__gte=cutoff).update(
        deleted_at=at, updated_at=at, version=F("version") + 1, slug=""
    )


def _insert_articles(*, blog_id: int, first_number: int, count: int, at: datetime) -> None:
    numbers = range(first_number, first_number + count)
    if connection.vendor == "postgresql":
        _copy_articles(blog_id=blog_id, numbers=numbers, at=at)
        return
    for start in range(0, count, BATCH_SIZE):
        Article.objects.bulk_create(
            [
                Article(
                    blog_id=blog_id,
                    title=article_title(number),
                    content=article_content(number),
                    slug=article_slug(number),
                    created_at=at,
                    updated_at=at,
                    published_at=at,
                )
                for number in numbers[start : start + BATCH_SIZE]
            ],
            batch_size=5_000,
        )


def _copy_articles(*, blog_id: int, numbers: range, at: datetime) -> None:
    """COPY through psycopg 3: a million rows in seconds rather than minutes of INSERTs."""
    table = connection.ops.quote_name(Article._meta.db_table)
    columns = (
        "blog_id, title, content, slug, created_at, updated_at, published_at, version, locked, "
        "content_format"
    )
    # Titles and content hold no tab, newline or backslash, so the text format needs no escaping.
    constant = f"\t{at.isoformat()}\t{at.isoformat()}\t{at.isoformat()}\t1\tf\ttext\n"
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for start in range(0, len(numbers), BATCH_SIZE):
            chunk = io.StringIO()
            for number in numbers[start : start + BATCH_SIZE]:
                chunk.write(
                    f"{blog_id}\t{article_title(number)}\t{article_content(number)}"
                    f"\t{article_slug(number)}{constant}"
                )
            copy.write(chunk.getvalue())
