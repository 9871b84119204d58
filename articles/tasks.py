"""The articles' Celery task, on beat's schedule (settings.CELERY_BEAT_SCHEDULE): forgetting the
search changes no kept ranking can need any more (docs/decisions/search.md, "Carried over the
writes")."""

from __future__ import annotations

from celery import shared_task

from articles import rankings


@shared_task(name="articles.forget_search_changes", ignore_result=True)
def forget_search_changes() -> int:
    """Drop the changes older than rankings.CHANGES_KEPT_SECONDS; the number dropped."""
    return rankings.forget_changes()
