"""The blogs', articles' and comments' REST routes; config/urls.py mounts them with the other
apps' under one namespace, twice: /api/v1.2/ (canonical) and /api/ (the version then comes from
the Accept header's `version` parameter)."""

from __future__ import annotations

from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from articles.api.feeds import BlogFeedView
from articles.api.views.articles import ArticleBySlugView, ArticleListView, ArticleView
from articles.api.views.blogs import ApiRootView, BlogListView, BlogView
from articles.api.views.comments import CommentListView, CommentView
from articles.api.views.revisions import RevisionListView, RevisionView
from articles.api.views.search import ArticleSearchView
from articles.api.views.tags import TagListView, TagView

_ARTICLE = "blogs/<int:blog_id>/articles/<int:article_id>"

urlpatterns = [
    path("", ApiRootView.as_view(), name="root"),
    path("blogs", BlogListView.as_view(), name="blogs"),
    path("articles", ArticleSearchView.as_view(), name="search"),
    path("blogs/<int:blog_id>", BlogView.as_view(), name="blog"),
    # Not a DRF view: exempt as they are, so that a POST is its 405 and not a CSRF refusal.
    path("blogs/<int:blog_id>/feed", csrf_exempt(BlogFeedView.as_view()), name="feed"),
    path("blogs/<int:blog_id>/articles", ArticleListView.as_view(), name="articles"),
    path(
        "blogs/<int:blog_id>/articles/by-slug/<str:slug>",
        ArticleBySlugView.as_view(),
        name="article-by-slug",
    ),
    path(_ARTICLE, ArticleView.as_view(), name="article"),
    path("blogs/<int:blog_id>/tags", TagListView.as_view(), name="tags"),
    path("blogs/<int:blog_id>/tags/<str:tag_slug>", TagView.as_view(), name="tag"),
    path(f"{_ARTICLE}/comments", CommentListView.as_view(), name="comments"),
    path(f"{_ARTICLE}/comments/<int:comment_id>", CommentView.as_view(), name="comment"),
    path(f"{_ARTICLE}/revisions", RevisionListView.as_view(), name="revisions"),
    path(f"{_ARTICLE}/revisions/<int:revision>", RevisionView.as_view(), name="revision"),
]
