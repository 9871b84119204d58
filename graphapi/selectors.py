"""Reads of the live blog data for the GraphQL root resolvers (the Star Wars data is served by
graphapi.catalogue)."""

from __future__ import annotations

from django.conf import settings
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLResolveInfo,
    InlineFragmentNode,
    SelectionSetNode,
)

from articles import search, tags
from articles.models import MAX_ID, Article, ArticleRevision
from articles.pages import PageTooSlow
from articles.selectors import revisions_by_article
from blogs.models import Blog
from core.paging import Page

# Where a list of articles leaves each one's revisions, read for the whole list at once.
KEPT_REVISIONS = "kept_revisions"

# A longer number names nothing, and must not reach int(), which refuses strings of more than
# 4,300 digits.
_MAX_ID_DIGITS = len(str(MAX_ID))


def parse_id(text: str) -> int | None:
    """The integer an ID argument names, or None when it names nothing."""
    # Ids are plain decimal numbers; int() would also take " 1", "1_0" or non-ASCII digits.
    if len(text) > _MAX_ID_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= MAX_ID else None


def blog_for_reading(*, blog_id: str) -> Blog | None:
    """A blog as readers see it, archived ones included (they stay readable)."""
    pk = parse_id(blog_id)
    return None if pk is None else Blog.objects.filter(pk=pk).first()


def article_for_reading(*, blog_id: str, article_id: str) -> Article | None:
    """A live article of that blog: a deleted one, or one of another blog, is not found."""
    blog_pk, article_pk = parse_id(blog_id), parse_id(article_id)
    if blog_pk is None or article_pk is None:
        return None
    articles = Article.objects.live().in_blog(blog_pk).filter(pk=article_pk)
    return tags.with_tag_names(articles).first()


def _paging(page_index: int | None, page_size: int | None) -> tuple[int, int]:
    """A page's number and size as REST checks them; a GraphQL error naming the bad one otherwise
    (REST answers a 400 problem). An explicit null is the argument's default, as it is for q and
    sort (the arguments are nullable: the schema's defaults apply only to an argument left out)."""
    page_index = 1 if page_index is None else page_index
    page_size = settings.PAGE_SIZE_DEFAULT if page_size is None else page_size
    if page_index < 1:
        raise GraphQLError("pageIndex must be a positive integer.")
    if not 1 <= page_size <= settings.PAGE_SIZE_MAX:
        raise GraphQLError(f"pageSize must be 1 to {settings.PAGE_SIZE_MAX}.")
    return page_index, page_size


def blog_article_page(
    *,
    blog: Blog,
    page_index: int | None = None,
    page_size: int | None = None,
    q: str | None = None,
    sort: str | None = None,
    tag: str | None = None,
) -> Page[Article]:
    """A page of the blog's live articles (articles.search), its arguments checked as REST's: a
    few queries, the same whatever the page size; each article's blog is this one (no query per
    article)."""
    page_index, page_size = _paging(page_index, page_size)
    try:
        query = search.clean_query(q)
        order = search.clean_sort(sort, query=query)
        if tag is not None and not tags.tag_slug_is_valid(tag):
            raise GraphQLError("tag is a tag's slug (as the blog's tags show it).")
        return search.blog_article_page(
            blog=blog,
            query=query,
            sort=order,
            page_index=page_index,
            page_size=page_size,
            tag=tag,
        )
    # A bad q or sort, a search too broad, a busy database.
    except (search.SearchError, PageTooSlow) as error:
        raise GraphQLError(str(error)) from None


def keep_revisions(articles: list[Article], info: GraphQLResolveInfo) -> list[Article]:
    """The articles of a page, with the revisions of all of them read in one more query when the
    document asks for `revisions`: no query per article."""
    if articles and _selects(info, "revisions"):
        kept = revisions_by_article(article_ids=[article.pk for article in articles])
        for article in articles:
            setattr(article, KEPT_REVISIONS, kept[article.pk])
    return articles


def revisions_of(article: Article) -> list[ArticleRevision]:
    """The article's revisions, newest first: as its list read them, else in one query."""
    kept = getattr(article, KEPT_REVISIONS, None)
    return revisions_by_article(article_ids=[article.pk])[article.pk] if kept is None else kept


def _selects(info: GraphQLResolveInfo, name: str) -> bool:
    """Whether the field being resolved selects `name` on its items (through fragments too)."""

    def within(selection_set: SelectionSetNode | None) -> bool:
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode) and selection.name.value == name:
                return True
            if isinstance(selection, InlineFragmentNode) and within(selection.selection_set):
                return True
            if isinstance(selection, FragmentSpreadNode):
                fragment = info.fragments.get(selection.name.value)
                if fragment is not None and within(fragment.selection_set):
                    return True
        return False

    return any(within(node.selection_set) for node in info.field_nodes)


def blog_tags(*, blog: Blog, page_index: int | None, page_size: int | None) -> list:
    """A page of the blog's tags with their counts (articles.tags.tag_page), checked as REST."""
    page_index, page_size = _paging(page_index, page_size)
    return list(tags.tag_page(blog_id=blog.pk, page_index=page_index, page_size=page_size).items)
