"""What the article and comment services announce, inside the write's transaction.

`changed` is sent with `event` (one of webhooks.models.EVENT_TYPES) and `instance`: the article
or comment as written (a deleted comment keeps its id). Listeners connect in their
AppConfig.ready(), as webhooks does to write its outbox rows in the same transaction; the services
import none of them, so the dependency runs one way.

A listener that must know something of the blog on every write (webhooks: whether anyone
subscribed) registers an annotation in `blog_annotations`, a name and a function of the outer
query's blog reference: the writes read it in the query that reads the blog anyway
(articles.selectors), so asking costs no query of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Expression
from django.dispatch import Signal

changed = Signal()

blog_annotations: dict[str, Callable[[str], Expression]] = {}


def blog_annotations_of(blog_ref: str) -> dict[str, Expression]:
    """The registered annotations for a query whose blog is `blog_ref` (`pk` on blogs,
    `blog_id` on articles), to pass to annotate()."""
    return {name: annotation(blog_ref) for name, annotation in blog_annotations.items()}


def carry_blog_annotations(article: Any) -> None:
    """Move what an article query annotated for the listeners onto its blog, where they read it."""
    for name in blog_annotations:
        setattr(article.blog, name, getattr(article, name))


def announce(event: str, instance: object) -> None:
    changed.send(sender=type(instance), event=event, instance=instance)
