"""python manage.py seed_bench --articles N: the benchmark's data set, on any database."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from articles.seeding import (
    BENCH_BLOG_ID,
    EMPTY_BLOG_ID,
    articles_vacuum_for_bench,
    blogs_seed_for_bench,
)


class Command(BaseCommand):
    help = (
        f"Make blog {BENCH_BLOG_ID} hold exactly N live articles and blog {EMPTY_BLOG_ID} none, "
        "with alice an author of both. Idempotent; surplus articles are tombstoned."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--articles", type=int, required=True, metavar="N")

    def handle(self, *args, articles: int, **options) -> None:
        if articles < 0:
            raise CommandError("--articles must be 0 or more")
        started = time.monotonic()
        result = blogs_seed_for_bench(articles=articles)
        vacuumed = articles_vacuum_for_bench()
        self.stdout.write(
            f"blog {BENCH_BLOG_ID}: {result.live} live articles "
            f"(+{result.added} added, {result.removed} tombstoned), blog {EMPTY_BLOG_ID}: empty; "
            f"{'changed' if result.changed else 'nothing to change'} "
            f"in {time.monotonic() - started:.1f} s{'; table vacuumed' if vacuumed else ''}"
        )
