"""An article's comments: the page, one comment, create (any valid token), delete."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from articles import selectors, services
from articles.api.inputs import CommentInputSerializer
from articles.api.lookups import get_article, get_article_to_comment, get_blog
from articles.api.permissions import ensure_may_delete_comment
from articles.api.serializers import CommentPageSerializer, CommentSerializer
from articles.models import Article, Comment
from core import representations
from rest.conditional import Validators, conditional_read, strong_etag
from rest.exceptions import UnprocessableContent
from rest.idempotency import run_idempotent
from rest.links import api_url
from rest.openapi import IDEMPOTENCY_KEY, PAGE_PARAMETERS, read, write
from rest.paging import page_body, page_params
from rest.views import ApiView, json_object


def comment_validators(comment: Comment) -> Validators:
    return Validators(strong_etag("comment", comment.pk, comment.updated_at), comment.updated_at)


def comments_generations(article: Article) -> list[str]:
    # The article and its blog too: their deletion makes them 410 or 404.
    return [
        representations.article_comments_generation(article.pk),
        representations.article_generation(article.pk),
        representations.blog_generation(article.blog_id),
    ]


def get_comment(blog_id: int, article_id: int, comment_id: int) -> Comment:
    """The comment of the live article (`comment.article.blog` set), or 404 or 410."""
    article = get_article(get_blog(blog_id), article_id)
    comment = get_object_or_404(
        Comment.objects.select_related("author"), pk=comment_id, article_id=article.pk
    )
    comment.article = article
    return comment


class CommentListView(ApiView):
    @read(
        "comments_list",
        "A page of an article's comments",
        CommentPageSerializer,
        tag="comments",
        description="The article's comments, a page at a time, oldest first. 410 when the"
        " article was deleted.",
        errors=(404, 410),
        parameters=PAGE_PARAMETERS,
    )
    def get(self, request: Request, blog_id: int, article_id: int) -> HttpResponse:
        page_index, page_size = page_params(request)
        article = get_article(get_blog(blog_id), article_id)
        state = selectors.comment_list_state(article=article)
        validators = Validators(
            strong_etag(
                "comments",
                article.pk,
                state.count,
                state.id_sum,
                state.last_modified,
                page_index,
                page_size,
            ),
            state.last_modified,
        )

        def body() -> dict[str, Any]:
            page = selectors.comment_page(
                article=article, total=state.count, page_index=page_index, page_size=page_size
            )
            url = api_url(request, "comments", blog_id=blog_id, article_id=article.pk)
            return page_body(request, CommentPageSerializer, page, collection_url=url)

        return conditional_read(request, validators, comments_generations(article), body)

    @write(
        "comment_create",
        "Comment on an article",
        tag="comments",
        description="Any valid token may comment; the comment's author is the token's user."
        " Answers 201 with the comment and its `Location`. `Idempotency-Key` as for an article."
        " 409 when the blog is archived, 410 when the article was deleted.",
        request=CommentInputSerializer,
        responses={201: CommentSerializer},
        parameters=[IDEMPOTENCY_KEY],
        errors=(404, 409, 410),
    )
    def post(self, request: Request, blog_id: int, article_id: int) -> Response:
        article = get_article_to_comment(blog_id, article_id)

        def create() -> Response:
            serializer = CommentInputSerializer(data=json_object(request))
            if not serializer.is_valid():
                raise UnprocessableContent(serializer.errors)
            # The comment's article is the one its service read under the lock, with its blog.
            comment = services.comment_create(
                article=article, author=request.user, text=serializer.validated_data["text"]
            )
            data = CommentSerializer(comment, context={"request": request}).data
            response = comment_validators(comment).apply(Response(data, status=201))
            response["Location"] = data["_links"]["self"]["href"]
            return response

        return run_idempotent(request, create)


class CommentView(ApiView):
    @read(
        "comment_read",
        "A comment",
        CommentSerializer,
        tag="comments",
        description="The comment, with its author's username and a link to its article. 410"
        " when the article was deleted.",
        errors=(404, 410),
    )
    def get(self, request: Request, blog_id: int, article_id: int, comment_id: int) -> HttpResponse:
        comment = get_comment(blog_id, article_id, comment_id)
        return conditional_read(
            request,
            comment_validators(comment),
            comments_generations(comment.article),
            lambda: CommentSerializer(comment, context={"request": request}).data,
        )

    @write(
        "comment_delete",
        "Delete a comment",
        tag="comments",
        description="The comment's author, an author of the blog or an editor may delete it."
        " Answers 204. 409 when the blog is archived, 410 when the article was deleted.",
        request=None,
        responses={204: OpenApiResponse(None, "Deleted.")},
        parameters=[],
        errors=(403, 404, 409, 410),
    )
    def delete(self, request: Request, blog_id: int, article_id: int, comment_id: int) -> Response:
        comment = get_comment(blog_id, article_id, comment_id)
        ensure_may_delete_comment(request, comment, comment.article.blog)
        if not services.comment_delete(comment=comment):
            raise NotFound("No such comment.")
        return Response(status=204)
