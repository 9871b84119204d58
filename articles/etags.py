"""The strong ETags of the REST surface (RFC 9110 section 8.8.3), computed where they are needed:
in the API's views, and in the services, which keep the tag an article had in each revision."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.utils.http import quote_etag

if TYPE_CHECKING:
    from articles.models import Article


def strong_etag(*parts: object) -> str:
    """A strong ETag from the values that identify one state of a resource."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return quote_etag(digest)


def article_etag(article: Article) -> str:
    """The ETag of the article's JSON representation (`article.blog` loaded). The blog's title is
    part of the representation (doc:blog's title), so it is part of the tag; so are the archived
    blog and the lock, which decide the HAL-FORMS templates."""
    return strong_etag(
        "article",
        article.pk,
        article.version,
        article.blog.title,
        article.blog.archived,
        article.locked,
    )
