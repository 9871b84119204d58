"""What a REST request names: the blog and article, with the answers the contract gives when they
are missing (404), deleted (410) or not the client's to write (403), and the search it asks for."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from rest_framework.request import Request

from articles import selectors
from articles.api.permissions import ensure_may_write_articles
from articles.exceptions import ArticleGone
from articles.models import Article
from articles.search import SearchError, clean_query, clean_sort
from articles.tags import tag_slug_is_valid
from blogs.models import Blog
from rest.exceptions import InvalidQueryParameter
from rest.paging import utf8_param


def get_blog(blog_id: int) -> Blog:
    return get_object_or_404(Blog, pk=blog_id)


def get_blog_to_write(request: Request, blog_id: int) -> Blog:
    """The blog, with whether the request's user is one of its authors read in the same query
    (Blog.is_author then costs none), or 404."""
    blog = selectors.blog_for_writing(blog_id=blog_id, writer=request.user)
    if blog is None:
        raise Http404("No Blog matches the given query.")
    return blog


def get_article(blog: Blog, article_id: int) -> Article:
    """The live article of `blog`: 404 when it never existed there, 410 when it was deleted."""
    article = _live(get_object_or_404(Article, pk=article_id, blog_id=blog.pk))
    article.blog = blog
    return article


def get_blog_for_reading(blog_id: int) -> Blog:
    """The blog with what a page of its articles needs (selectors.blog_for_reading), or 404."""
    blog = selectors.blog_for_reading(blog_id=blog_id)
    if blog is None:
        raise Http404("No Blog matches the given query.")
    return blog


def get_blog_article(blog_id: int, article_id: int) -> Article:
    """get_article(get_blog(blog_id), article_id) in one query (the blog joined) for reads.

    When no row comes back the blog is looked up on its own, so a missing blog is still the
    blog's 404 and a missing article the article's.
    """
    article = selectors.article_with_blog(blog_id=blog_id, article_id=article_id)
    if article is None:
        get_blog_for_reading(blog_id)
        raise Http404("No Article matches the given query.")
    return _live(article)


def get_article_to_comment(blog_id: int, article_id: int) -> Article:
    """The article a comment is written on, with the answers of get_blog_article (404 for the
    blog or the article, 410 when it was deleted) from a lean read: only whether it was deleted,
    since the comment's service reads the article again under its lock, with its blog."""
    article = selectors.article_to_comment(blog_id=blog_id, article_id=article_id)
    if article is None:
        get_blog(blog_id)
        raise Http404("No Article matches the given query.")
    return _live(article)


def get_article_to_write(request: Request, blog_id: int, article_id: int) -> Article:
    """The live article to replace or delete, its blog joined in the same query: the answers of
    get_blog, ensure_may_write_articles and get_article in that order (404 for the blog, 403,
    then 404 or 410 for the article), one query fewer."""
    article = selectors.article_with_blog(
        blog_id=blog_id, article_id=article_id, writer=request.user
    )
    if article is None:
        blog = get_blog(blog_id)
        ensure_may_write_articles(request, blog)
        raise Http404("No Article matches the given query.")
    ensure_may_write_articles(request, article.blog)
    return _live(article)


def _live(article: Article) -> Article:
    if article.is_deleted:
        raise ArticleGone
    return article


def search_params(request: HttpRequest) -> dict[str, str]:
    """`q`, `sort` and `tag` of a page of articles, checked (articles.search, articles.tags), or
    a 400 naming the bad one; only those given, as the page links repeat them."""
    try:
        query = clean_query(utf8_param(request, "q"))
        sort = clean_sort(request.GET.get("sort"), query=query)
    except SearchError as error:
        raise InvalidQueryParameter(error.parameter, str(error)) from None
    tag = request.GET.get("tag")
    if tag is not None and not tag_slug_is_valid(tag):
        raise InvalidQueryParameter("tag", "tag is a tag's slug (as the blog's tags show it).")
    given = {"q": query, "sort": sort, "tag": tag}
    return {name: value for name, value in given.items() if value is not None}


def search_key(search: dict[str, str]) -> tuple[str, ...]:
    """Checked search parameters as parts of an ETag: `sort` first, as it never holds the
    separator, then the tag (a slug: never the separator either), so that `q`, last, cannot be
    confused."""
    tag = ("tag=" + search["tag"],) if "tag" in search else ()
    return (search.get("sort", ""), *tag, search.get("q", ""))
