"""What a plain Django view does for an article and a page: one query each, JSON by hand.

The bodies have the service's shape (contract: Article, Article page) so that both send the
same bytes over the wire; there is no negotiation, validation, ETag or error body here.
Pages use OFFSET, as a plain view would: the scale run shows what that costs on deep pages.
"""

from __future__ import annotations

import json
import math

from django.http import HttpRequest, HttpResponse

from articles.models import Article
from blogs.models import Blog

HAL = "application/hal+json"
_ARTICLE_FIELDS = ("id", "title", "content")


def _json(payload: dict) -> HttpResponse:
    return HttpResponse(json.dumps(payload), content_type=HAL)


def _curies(origin: str) -> list[dict]:
    return [{"name": "doc", "href": f"{origin}/docs/rels/{{rel}}", "templated": True}]


def _article(origin: str, blog_id: int, blog_title: str, row: tuple) -> dict:
    article_id, title, content = row
    blog_href = f"{origin}/api/v1.2/blogs/{blog_id}"
    self_href = f"{blog_href}/articles/{article_id}"
    body = {"id": article_id, "title": title}
    if content is not None:
        body["content"] = content
    body["_links"] = {
        "curies": _curies(origin),
        "self": {"href": self_href},
        "doc:blog": {"href": blog_href, "title": blog_title},
        "doc:comments": {
            "href": f"{self_href}/comments{{?pageIndex,pageSize}}",
            "templated": True,
        },
    }
    return body


def article(request: HttpRequest, blog_id: int, article_id: int) -> HttpResponse:
    row = (
        Article.objects.live()
        .filter(blog_id=blog_id, pk=article_id)
        .values_list(*_ARTICLE_FIELDS, "blog__title")
        .first()
    )
    if row is None:
        return HttpResponse(status=404)
    origin = f"{request.scheme}://{request.get_host()}"
    return _json(_article(origin, blog_id, row[3], row[:3]))


def article_page(request: HttpRequest, blog_id: int) -> HttpResponse:
    index = int(request.GET.get("pageIndex", 1))
    size = int(request.GET.get("pageSize", 10))
    blog = Blog.objects.filter(pk=blog_id).values_list("title", "article_count").first()
    if blog is None:
        return HttpResponse(status=404)
    title, total = blog
    rows = (
        Article.objects.live()
        .in_blog(blog_id)
        .order_by("id")
        .values_list(*_ARTICLE_FIELDS)[(index - 1) * size : index * size]
    )
    origin = f"{request.scheme}://{request.get_host()}"
    pages = math.ceil(total / size)
    collection = f"{origin}/api/v1.2/blogs/{blog_id}/articles"

    def link(number: int) -> dict:
        return {"href": f"{collection}?pageIndex={number}&pageSize={size}"}

    links = {"firstPage": link(1)}
    if index > 1:
        links["previousPage"] = link(index - 1)
    links["self"] = link(index)
    if index < pages:
        links["nextPage"] = link(index + 1)
    links["lastPage"] = link(max(pages, 1))
    return _json(
        {
            "pageIndex": index,
            "pageSize": size,
            "totalPages": pages,
            "totalArticles": total,
            "_link": links,
            "_links": {"curies": _curies(origin), **links},
            "_embedded": [_article(origin, blog_id, title, row) for row in rows],
        }
    )


def article_count_scan(request: HttpRequest, blog_id: int) -> HttpResponse:
    """COUNT(*) over the blog's live articles: what `totalArticles` costs without a counter."""
    return _json({"totalArticles": Article.objects.live().in_blog(blog_id).count()})
