"""An article's strong ETag (RFC 9110 section 8.8.3), computed in the API's views and in the
services, which keep the tag an article had in each revision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest.conditional import strong_etag

if TYPE_CHECKING:
    from articles.models import Article


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
