"""`/articles?q=`: a search across the articles of every blog."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from rest_framework.request import Request

from articles import search as article_search
from articles import selectors
from articles.api.lookups import search_key, search_params
from articles.api.schema import search_parameters
from articles.api.serializers import ArticlePageSerializer
from articles.api.views.blogs import blog_list_validators
from core import representations
from rest.conditional import conditional_read
from rest.exceptions import InvalidQueryParameter
from rest.links import api_url
from rest.openapi import PAGE_PARAMETERS, read
from rest.paging import page_body, page_params
from rest.views import ApiView


class ArticleSearchView(ApiView):
    @read(
        "articles_search",
        "Search the articles of every blog",
        ArticlePageSerializer,
        tag="articles",
        description="The live articles of every blog (archived blogs included) that match `q`"
        " (required), most relevant first unless `sort` says otherwise: the same page as a"
        " blog's articles, each article linking to its blog. Full-text search on PostgreSQL;"
        " every word, case-insensitive, on SQLite. Every page link keeps `q` and `sort`.",
        parameters=[*PAGE_PARAMETERS, *search_parameters(q_required=True)],
        errors=(),
    )
    def get(self, request: Request) -> HttpResponse:
        page_index, page_size = page_params(request)
        search = search_params(request)
        if "q" not in search:
            raise InvalidQueryParameter("q", "q is required: the text to search for.")
        # Every article write moves its blog's revision: the blog list's state names the state
        # of every blog's articles (one aggregate over the blogs, no scan of the articles).
        state = selectors.blog_list_state()
        validators = blog_list_validators(
            "search", state, page_index, page_size, *search_key(search)
        )

        def body() -> dict[str, Any]:
            page = article_search.article_search_page(
                query=search["q"],
                sort=search.get("sort"),
                page_index=page_index,
                page_size=page_size,
                tag=search.get("tag"),
            )
            return page_body(
                request,
                ArticlePageSerializer,
                page,
                collection_url=api_url(request, "search"),
                search=search,
            )

        # Any article of any blog, under its blog's title.
        generations = [representations.articles_generation(), representations.blogs_generation()]
        return conditional_read(request, validators, generations, body)
