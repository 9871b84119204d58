"""Invariants the models and the database keep, whatever surface writes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction

from articles import services
from articles.exceptions import ArticleGone, ArticleLocked, BlogArchived, VersionConflict
from articles.models import Article, Comment
from blogs.models import Blog


@pytest.mark.parametrize("title", ["", "   "])
def test_database_refuses_a_blank_article_title_even_past_the_model(blog, title):
    with pytest.raises(IntegrityError), transaction.atomic():
        Article.objects.create(blog=blog, title=title)


def test_database_refuses_an_article_title_over_200_characters(blog):
    # PostgreSQL's varchar(200) says DataError; SQLite has only the check constraint.
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        Article.objects.create(blog=blog, title="x" * 201)


def test_database_refuses_a_blank_blog_title(db):
    with pytest.raises(IntegrityError), transaction.atomic():
        Blog.objects.create(title=" ")


def test_database_refuses_an_empty_comment(article, alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        Comment.objects.create(article=article, author=alice, text="")


def test_service_validates_the_title_before_writing_and_writes_nothing(blog):
    with pytest.raises(ValidationError):
        services.article_create(blog=blog, title="  ")
    blog.refresh_from_db()
    assert blog.article_count == 0
    assert not Article.objects.exists()


def test_article_count_stays_exact_through_creates_and_deletes(blog, other_blog):
    created = [services.article_create(blog=blog, title=f"Post {n}") for n in range(7)]
    services.article_create(blog=other_blog, title="Elsewhere")
    for article in created[:3]:
        services.article_delete(article=article)
    blog.refresh_from_db()
    other_blog.refresh_from_db()
    assert blog.article_count == Article.objects.live().in_blog(blog.pk).count() == 4
    assert other_blog.article_count == 1


def test_a_failed_create_leaves_the_count_unchanged(blog):
    with pytest.raises(ValidationError):
        services.article_create(blog=blog, title="x" * 201)
    blog.refresh_from_db()
    assert blog.article_count == 0


def test_every_write_changes_the_version_and_the_blog_revision(article):
    blog_revision = Blog.objects.get(pk=article.blog_id).revision
    replaced = services.article_replace(article=article, title="New title")
    assert replaced.version == article.version + 1
    assert replaced.updated_at > article.updated_at
    assert Blog.objects.get(pk=article.blog_id).revision > blog_revision


def test_timestamps_keep_microseconds(article):
    stored = Article.objects.get(pk=article.pk)
    assert stored.updated_at == article.updated_at
    assert stored.created_at.microsecond == article.created_at.microsecond


def test_replace_without_content_removes_it(article):
    replaced = services.article_replace(article=article, title="Only a title")
    assert Article.objects.get(pk=article.pk).content is None
    assert replaced.content is None


def test_replace_with_a_stale_version_is_refused_and_changes_nothing(article):
    services.article_replace(article=article, title="Second", expected_version=article.version)
    with pytest.raises(VersionConflict) as caught:
        services.article_replace(article=article, title="Lost", expected_version=article.version)
    assert caught.value.current_version == article.version + 1
    assert Article.objects.get(pk=article.pk).title == "Second"


def test_deleted_article_leaves_a_tombstone_and_refuses_further_writes(article):
    services.article_delete(article=article)
    tombstone = Article.objects.get(pk=article.pk)
    assert tombstone.is_deleted
    assert not Article.objects.live().filter(pk=article.pk).exists()
    with pytest.raises(ArticleGone):
        services.article_replace(article=article, title="Back")
    with pytest.raises(ArticleGone):
        services.article_delete(article=article)


def test_locked_article_refuses_replace_and_delete_until_unlocked(article):
    services.article_lock(article=article)
    with pytest.raises(ArticleLocked):
        services.article_replace(article=article, title="Nope")
    with pytest.raises(ArticleLocked):
        services.article_delete(article=article)
    services.article_unlock(article=article)
    assert services.article_replace(article=article, title="Yes").title == "Yes"


def test_archived_blog_refuses_every_article_write(archived_blog, alice):
    with pytest.raises(BlogArchived):
        services.article_create(blog=archived_blog, title="New")
    archived_blog.refresh_from_db()
    assert archived_blog.article_count == 0
    Blog.objects.filter(pk=archived_blog.pk).update(archived=False)
    article = services.article_create(blog=archived_blog, title="Before archiving")
    Blog.objects.filter(pk=archived_blog.pk).update(archived=True)
    with pytest.raises(BlogArchived):
        services.article_replace(article=article, title="After")
    with pytest.raises(BlogArchived):
        services.comment_create(article=article, author=alice, text="Hi")


def test_blog_revision_changes_when_the_blog_is_edited(blog):
    before = blog.revision
    blog.title = "Renamed"
    blog.save()
    assert Blog.objects.get(pk=blog.pk).revision == before + 1


def test_editing_a_stale_blog_instance_keeps_the_counters_the_services_moved(blog):
    stale = Blog.objects.get(pk=blog.pk)
    services.article_create(blog=blog, title="Meanwhile")
    revision_after_create = Blog.objects.get(pk=blog.pk).revision
    stale.description = "Edited in the admin from an old form"
    stale.save()
    stored = Blog.objects.get(pk=blog.pk)
    assert stored.article_count == 1
    assert stored.revision == revision_after_create + 1
    assert (stale.article_count, stale.revision) == (1, stored.revision)
