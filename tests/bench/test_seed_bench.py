"""`manage.py seed_bench --articles N`: the benchmark data, exact and idempotent on any database."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection

from articles import services as article_services
from articles.models import Article
from blogs.models import Blog

pytestmark = pytest.mark.django_db


def seed(articles: int) -> str:
    out = StringIO()
    call_command("seed_bench", "--articles", str(articles), stdout=out)
    return out.getvalue()


def live_ids(blog_id: int) -> list[int]:
    return list(Article.objects.live().in_blog(blog_id).order_by("id").values_list("id", flat=True))


def test_blog_1_gets_exactly_n_live_articles_and_blog_2_none():
    seed(120)

    assert len(live_ids(1)) == 120
    assert live_ids(2) == []
    assert Blog.objects.get(pk=1).article_count == 120
    assert Blog.objects.get(pk=2).article_count == 0


def test_alice_is_an_author_of_both_blogs_and_keeps_her_password():
    User.objects.create_user("alice", password="alice-password")

    seed(3)

    alice = User.objects.get(username="alice")
    assert alice.check_password("alice-password")
    assert set(alice.blogs.values_list("pk", flat=True)) >= {1, 2}


def test_a_second_run_with_the_same_number_changes_nothing():
    seed(40)
    before = Blog.objects.get(pk=1)
    ids_before = live_ids(1)

    output = seed(40)

    after = Blog.objects.get(pk=1)
    assert live_ids(1) == ids_before
    assert (after.revision, after.updated_at) == (before.revision, before.updated_at)
    assert Article.objects.count() == 40
    assert "nothing to change" in output


def test_a_smaller_number_tombstones_the_newest_articles():
    seed(30)
    ids = live_ids(1)
    revision = Blog.objects.get(pk=1).revision

    seed(25)

    assert live_ids(1) == ids[:25]
    assert list(Article.objects.deleted().order_by("id").values_list("id", flat=True)) == ids[25:]
    blog = Blog.objects.get(pk=1)
    assert blog.article_count == 25
    assert blog.revision > revision


def test_a_larger_number_adds_articles_after_the_existing_ones():
    seed(10)
    ids = live_ids(1)

    seed(35)

    grown = live_ids(1)
    assert len(grown) == 35
    assert grown[:10] == ids
    assert Blog.objects.get(pk=1).article_count == 35


def test_zero_articles_leaves_blog_1_empty():
    seed(5)

    seed(0)

    assert live_ids(1) == []
    assert Blog.objects.get(pk=1).article_count == 0


def test_live_articles_already_in_blog_2_are_tombstoned():
    seed(2)
    written = article_services.article_create(blog=Blog.objects.get(pk=2), title="Posted")

    seed(2)

    written.refresh_from_db()
    assert written.is_deleted
    assert Blog.objects.get(pk=2).article_count == 0


def test_an_existing_blog_1_keeps_its_title_and_is_made_writable():
    Blog.objects.create(pk=1, title="Alice's own blog", archived=True)

    seed(4)

    blog = Blog.objects.get(pk=1)
    assert blog.title == "Alice's own blog"
    assert not blog.archived
    assert blog.article_count == 4


def test_a_counter_that_drifted_is_made_exact_again():
    seed(8)
    Blog.objects.filter(pk=1).update(article_count=999)
    revision = Blog.objects.get(pk=1).revision

    seed(8)

    blog = Blog.objects.get(pk=1)
    assert blog.article_count == 8
    assert blog.revision > revision


def test_blogs_and_articles_created_after_seeding_get_fresh_ids():
    seed(6)

    blog = Blog.objects.create(title="Made afterwards")
    article = article_services.article_create(blog=Blog.objects.get(pk=1), title="Afterwards")

    assert blog.pk not in (1, 2)
    assert article.pk > max(live_ids(1)[:-1])
    assert Blog.objects.get(pk=1).article_count == 7


def test_seeded_articles_are_valid_articles():
    seed(3)

    for article in Article.objects.in_blog(1):
        article.full_clean()
        assert article.content
        assert article.version == 1
        assert not article.locked


def test_a_negative_number_is_refused_and_nothing_is_written():
    with pytest.raises(CommandError, match="--articles"):
        seed(-1)

    assert not Blog.objects.exists()
    assert not User.objects.filter(username="alice").exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="VACUUM is PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_the_seeded_table_is_vacuumed_so_paging_scans_only_the_index():
    assert "table vacuumed" in seed(300)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relallvisible, relpages FROM pg_class WHERE relname = %s",
            [Article._meta.db_table],
        )
        all_visible, pages = cursor.fetchone()
    assert pages > 0 and all_visible == pages


def test_inside_a_transaction_the_vacuum_is_skipped_not_failed():
    assert "table vacuumed" not in seed(3)


def test_each_article_names_a_few_topics_so_that_a_search_finds_some_not_all():
    seed(2000)

    both = Article.objects.filter(content__contains="harbour").filter(content__contains="lantern")
    assert 0 < Article.objects.filter(content__contains="harbour").count() < 200
    assert both.count() < 20
    assert Article.objects.get(pk=live_ids(1)[0]).content.startswith("A benchmark article.")
    assert Article.objects.values("content").distinct().count() > 1000
