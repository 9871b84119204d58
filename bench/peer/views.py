"""The contract's writes as Django REST framework alone serves them: generic views, model
serializers, drf-hal-json's renderer and parser, the service's models and database.

What the service adds on top (revisions, the outbox, rate limits, idempotency, the representation
cache, metrics, problem bodies) is left out: the bench sets the service's writes against these
(bench/README.md, "Servers"). What stays is what the contract asks of every write:
- the token: `X-Access-Token` looked up with the model's own `AccessToken.objects.matching` (one
  query, constant-time comparison); 401 without it, 403 unless the user is an author of the blog
  (an article's writes; any valid token may comment, as in the service);
- the article's ETag, the service's own (articles.etags), on GET, POST and PUT; a PUT with a
  stale `If-Match` is 412, and its UPDATE is conditional on the version it checked, so a write
  that lost a race is a 412 too, never a lost update;
- 404, 410 (a deleted article), 409 (an archived blog), 423 (a locked article), 201 + Location;
- a new article's slug made from its title and free in the blog, and the blog's `article_count`
  kept exact (the model's invariants: a page's `totalArticles` reads it).
An invalid body is DRF's 400 (the service answers 422 with a problem).

Why not drf-hal-json's HalModelSerializer: its `_links` are bare URL strings of the model's
hyperlinked relations, while the contract's are link objects (`{"href": ...}`), with curies, a
titled `doc:blog` and templated links to collections that are no model field. So the serializers
are DRF ModelSerializers whose `_links` is a method field; drf-hal-json renders and parses.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.db import transaction
from django.db.models import F
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.http import parse_etags
from django.utils.text import slugify
from drf_hal_json.parsers import JsonHalParser
from drf_hal_json.renderers import JsonHalRenderer
from rest_framework import exceptions, generics, serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from articles import content as article_content
from articles.etags import article_etag
from articles.models import COMMENT_MAX_LENGTH, CONTENT_FORMATS, SLUG_MAX_LENGTH, Article, Comment
from blogs.models import AccessToken, Blog

TOKEN_HEADER = "X-Access-Token"  # noqa: S105 (a header's name)
PAGE_TEMPLATE = "{?pageIndex,pageSize}"


class Gone(exceptions.APIException):
    status_code = status.HTTP_410_GONE
    default_detail = "The article was deleted."


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The blog is archived and read-only."


class Locked(exceptions.APIException):
    status_code = status.HTTP_423_LOCKED
    default_detail = "The article is locked by the editors."


class PreconditionFailed(exceptions.APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = "If-Match does not match the current ETag."


class AccessTokenAuthentication(BaseAuthentication):
    """Writes carry `X-Access-Token`; reads never look at it."""

    def authenticate(self, request: Request) -> tuple[Any, AccessToken] | None:
        if request.method in SAFE_METHODS:
            return None
        plain = request.headers.get(TOKEN_HEADER)
        if plain is None:
            return None  # IsAuthenticatedOrReadOnly answers 401 (authenticate_header)
        token = AccessToken.objects.matching(plain.strip())
        if token is None:
            raise exceptions.AuthenticationFailed(
                "The access token is unknown, revoked or expired."
            )
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return f'{TOKEN_HEADER} realm="api"'


class IsBlogAuthor(BasePermission):
    """Writing an article needs an author of its blog; reading needs nobody."""

    message = "You may not write articles in this blog."

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True  # a PUT is checked on the article (has_object_permission)
        return view.get_blog().is_author(request.user)

    def has_object_permission(self, request: Request, view: Any, obj: Article) -> bool:
        return request.method in SAFE_METHODS or obj.blog.is_author(request.user)


def origin(request: Request) -> str:
    return request.build_absolute_uri("/")[:-1]


def curies(request: Request) -> list[dict[str, Any]]:
    return [{"name": "doc", "href": f"{origin(request)}/docs/rels/{{rel}}", "templated": True}]


def article_href(request: Request, blog_id: int, article_id: int) -> str:
    return f"{origin(request)}/api/v1.2/blogs/{blog_id}/articles/{article_id}"


class ArticleSerializer(serializers.ModelSerializer):
    """An article in the contract's shape (`blog` loaded); a field without a value is left out."""

    contentHtml = serializers.SerializerMethodField()
    excerpt = serializers.SerializerMethodField()
    publishedAt = serializers.DateTimeField(
        source="published_at", read_only=True, default_timezone=UTC
    )
    tags = serializers.SerializerMethodField()
    contentFormat = serializers.ChoiceField(
        source="content_format", choices=[name for name, _ in CONTENT_FORMATS], required=False
    )
    _links = serializers.SerializerMethodField(method_name="links")

    class Meta:
        model = Article
        fields = [
            "id",
            "title",
            "content",
            "contentHtml",
            "excerpt",
            "slug",
            "publishedAt",
            "tags",
            "contentFormat",
            "_links",
        ]
        read_only_fields = ["slug"]
        extra_kwargs = {"content": {"trim_whitespace": False}}

    def get_contentHtml(self, article: Article) -> str | None:
        if article.content is None:
            return None
        return article_content.render_html(article.content, article.content_format)

    def get_excerpt(self, article: Article) -> str | None:
        if article.content is None:
            return None
        return article_content.excerpt(article.content, article.content_format)

    def get_tags(self, article: Article) -> list[str]:
        return sorted((tag.name for tag in article.tags.all()), key=str.lower)

    def links(self, article: Article) -> dict[str, Any]:
        request = self.context["request"]
        href = article_href(request, article.blog_id, article.pk)
        return {
            "curies": curies(request),
            "self": {"href": href},
            "doc:blog": {
                "href": f"{origin(request)}/api/v1.2/blogs/{article.blog_id}",
                "title": article.blog.title,
            },
            "doc:comments": {"href": f"{href}/comments{PAGE_TEMPLATE}", "templated": True},
            "doc:revisions": {"href": f"{href}/revisions{PAGE_TEMPLATE}", "templated": True},
        }

    def to_representation(self, instance: Article) -> dict[str, Any]:
        data = super().to_representation(instance)
        return {name: value for name, value in data.items() if value is not None}

    def update(self, instance: Article, validated_data: dict[str, Any]) -> Article:
        """A whole replace (a body without `content` removes it), written only if the article is
        still the version the If-Match was checked against: one UPDATE."""
        changes = {
            "title": validated_data["title"],
            "content": validated_data.get("content"),
            "updated_at": timezone.now(),
            "version": instance.version + 1,
        }
        if "content_format" in validated_data:
            changes["content_format"] = validated_data["content_format"]
        written = Article.objects.filter(
            pk=instance.pk, version=instance.version, deleted_at=None, locked=False
        ).update(**changes)
        if not written:
            raise PreconditionFailed("The article changed since that version.")
        for name, value in changes.items():
            setattr(instance, name, value)
        return instance


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.get_username", read_only=True)
    _links = serializers.SerializerMethodField(method_name="links")

    class Meta:
        model = Comment
        fields = ["id", "author", "text", "_links"]
        extra_kwargs = {"text": {"max_length": COMMENT_MAX_LENGTH}}

    def links(self, comment: Comment) -> dict[str, Any]:
        request = self.context["request"]
        article = article_href(request, comment.article.blog_id, comment.article_id)
        return {
            "curies": curies(request),
            "self": {"href": f"{article}/comments/{comment.pk}"},
            "doc:article": {"href": article},
        }


class HalView(generics.GenericAPIView):
    renderer_classes = [JsonHalRenderer]
    parser_classes = [JsonHalParser, JSONParser]
    authentication_classes = [AccessTokenAuthentication]
    permission_classes = [IsAuthenticatedOrReadOnly]


def with_etag(response: Response, article: Article) -> Response:
    response["ETag"] = article_etag(article)
    return response


class ArticleCreateView(HalView, generics.CreateAPIView):
    """POST a new article into the blog: 201, Location, ETag."""

    serializer_class = ArticleSerializer
    permission_classes = [IsAuthenticatedOrReadOnly, IsBlogAuthor]

    def get_blog(self) -> Blog:
        if not hasattr(self, "blog"):
            self.blog = get_object_or_404(Blog, pk=self.kwargs["blog_id"])
        return self.blog

    def perform_create(self, serializer: ArticleSerializer) -> None:
        blog = self.get_blog()
        if blog.archived:
            raise Conflict
        now = timezone.now()
        base = slugify(serializer.validated_data["title"])[: SLUG_MAX_LENGTH - 21] or "article"
        with transaction.atomic():
            Blog.objects.filter(pk=blog.pk).update(article_count=F("article_count") + 1)
            taken = Article.objects.filter(blog_id=blog.pk, slug=base).exists()
            article = serializer.save(
                blog=blog,
                slug="" if taken else base,
                created_at=now,
                updated_at=now,
                published_at=now,
            )
            if taken:  # the title's slug is another article's: this one's names it by its id
                article.slug = f"{base}-{article.pk}"
                Article.objects.filter(pk=article.pk).update(slug=article.slug)
        self.created = article

    def get_success_headers(self, data: dict[str, Any]) -> dict[str, str]:
        return {"Location": data["_links"]["self"]["href"]}

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return with_etag(super().create(request, *args, **kwargs), self.created)


class ArticleView(HalView, generics.RetrieveUpdateAPIView):
    """GET (public) and PUT (an author; If-Match) of one article, with its ETag."""

    serializer_class = ArticleSerializer
    permission_classes = [IsAuthenticatedOrReadOnly, IsBlogAuthor]
    lookup_url_kwarg = "article_id"
    http_method_names = ["get", "put", "head", "options"]

    def get_queryset(self):
        return Article.objects.filter(blog_id=self.kwargs["blog_id"]).select_related("blog")

    def get_object(self) -> Article:
        article = super().get_object()  # 404, then 403 for a write
        if article.deleted_at is not None:
            raise Gone
        return article

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        article = self.get_object()
        return with_etag(Response(self.get_serializer(article).data), article)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        article = self.get_object()
        if article.blog.archived:
            raise Conflict
        if article.locked:
            raise Locked
        if_match = request.headers.get("If-Match", "*").strip()  # none: an unconditional write
        if if_match != "*" and article_etag(article) not in parse_etags(if_match):
            raise PreconditionFailed
        serializer = self.get_serializer(article, data=request.data)
        serializer.is_valid(raise_exception=True)
        self.perform_update(serializer)
        return with_etag(Response(serializer.data), serializer.instance)


class CommentCreateView(HalView, generics.CreateAPIView):
    """POST a comment on a live article (any valid token): 201, Location."""

    serializer_class = CommentSerializer

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The article before the body: a 404, 410 or 409 wins over a 400, as in the service.
        self.article = get_object_or_404(
            Article.objects.select_related("blog"),
            blog_id=self.kwargs["blog_id"],
            pk=self.kwargs["article_id"],
        )
        if self.article.deleted_at is not None:
            raise Gone
        if self.article.blog.archived:
            raise Conflict
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer: CommentSerializer) -> None:
        serializer.save(article=self.article, author=self.request.user)

    def get_success_headers(self, data: dict[str, Any]) -> dict[str, str]:
        return {"Location": data["_links"]["self"]["href"]}
