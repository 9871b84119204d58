"""Tags: an author's names become the blog's Tag rows (one per slug), set on an article in a
fixed number of statements whatever the number of tags (docs/decisions/publishing.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from django.db.models import Count, F, Func, Q, QuerySet, TextField
from django.utils.text import slugify

from articles.models import TAG_SLUG_MAX_LENGTH, Article, Tag
from articles.slugs import slug_is_valid
from core.paging import Page

TAGS_MAX = 20


def tag_slug(name: str) -> str:
    """The slug a tag is found by: slugify's, else (a name of no ASCII letter) a hash of it."""
    slug = slugify(name)[:TAG_SLUG_MAX_LENGTH].strip("-_")
    if slug:
        return slug
    return "tag-" + hashlib.blake2b(name.strip().lower().encode(), digest_size=6).hexdigest()


def distinct_names(names: Iterable[str]) -> dict[str, str]:
    """Slug → name, the first name of each slug kept, whitespace trimmed, in the given order."""
    found: dict[str, str] = {}
    for name in (" ".join(raw.split()) for raw in names):
        if name:
            found.setdefault(tag_slug(name), name)
    return found


def set_tags(article: Article, names: Iterable[str], *, replace: bool = True) -> list[str]:
    """Make the article's tags exactly `names`: the missing Tag rows in one INSERT (a tag
    another write made meanwhile is kept), the rows read in one SELECT, the article's links
    removed in one DELETE (`replace`) and written in one INSERT. Returns the names, in order."""
    wanted = distinct_names(names)
    through = Article.tags.through
    if replace:
        through.objects.filter(article_id=article.pk).delete()
    if not wanted:
        article.tag_names = []
        return []
    Tag.objects.bulk_create(
        [Tag(blog_id=article.blog_id, name=name, slug=slug) for slug, name in wanted.items()],
        ignore_conflicts=True,
    )
    tags = {tag.slug: tag for tag in Tag.objects.filter(blog_id=article.blog_id, slug__in=wanted)}
    through.objects.bulk_create(
        [through(article_id=article.pk, tag_id=tags[slug].pk) for slug in wanted]
    )
    article.tag_names = sorted((tags[slug].name for slug in wanted), key=str.lower)
    return article.tag_names


# Names joined by the ASCII unit separator, which no name holds (the input refuses control
# characters), read in the same statement as the article (with_tag_names).
_SEPARATOR = "\x1f"


class _JoinedNames(Func):
    """The article's tag names joined by _SEPARATOR, a correlated subquery of its row."""

    output_field = TextField()
    _FROM = (
        "FROM articles_article_tags at_ JOIN articles_tag t_ ON t_.id = at_.tag_id "
        "WHERE at_.article_id = %(expressions)s"
    )
    template = f"(SELECT group_concat(t_.name, char(31)) {_FROM})"

    def as_postgresql(self, compiler, connection, **extra):
        template = f"(SELECT string_agg(t_.name, chr(31)) {self._FROM})"
        return self.as_sql(compiler, connection, template=template, **extra)


def with_tag_names(articles: QuerySet) -> QuerySet:
    """`articles` with each one's tag names in the same statement (names_of reads them)."""
    return articles.annotate(tag_names_joined=_JoinedNames(F("pk")))


def has_control_characters(name: str) -> bool:
    return any(ord(char) < 32 or ord(char) == 127 for char in name)


def names_of(article: Article) -> list[str]:
    """The article's tag names: as a write left them, as with_tag_names read them, or (an
    article read otherwise) one query."""
    if getattr(article, "tag_names", None) is None:
        joined = getattr(article, "tag_names_joined", False)
        if joined is False:
            names = [tag.name for tag in article.tags.all()]
        else:
            names = joined.split(_SEPARATOR) if joined else []
        article.tag_names = sorted(names, key=str.lower)
    return article.tag_names


def tag_slug_is_valid(slug: str) -> bool:
    """Whether a `tag` parameter can be a tag's slug as tag_slug makes it."""
    return slug_is_valid(slug, TAG_SLUG_MAX_LENGTH)


def _with_counts(tags: QuerySet) -> QuerySet:
    live = Q(articles__deleted_at__isnull=True)
    return tags.annotate(article_count=Count("articles", filter=live))


def tag_page(*, blog_id: int, page_index: int, page_size: int) -> Page[Tag]:
    """The blog's tags by slug, each with its number of live articles: a COUNT and the page
    (OFFSET: a blog has few tags beside its articles)."""
    tags = Tag.objects.filter(blog_id=blog_id)
    total = tags.count()
    offset = (page_index - 1) * page_size
    if offset >= total:
        return Page([], total, page_index, page_size)
    items = list(_with_counts(tags).order_by("slug")[offset : offset + page_size])
    return Page(items, total, page_index, page_size)


def tag_of(*, blog_id: int, slug: str) -> Tag | None:
    if not tag_slug_is_valid(slug):
        return None
    return _with_counts(Tag.objects.filter(blog_id=blog_id, slug=slug)).first()
