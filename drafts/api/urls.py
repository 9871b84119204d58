"""The drafts' REST routes, mounted by config/urls.py beside the articles' (one namespace)."""

from __future__ import annotations

from django.urls import path

from drafts.api.views import (
    ArticleDraftView,
    DraftListView,
    DraftView,
    PreviewLinkView,
    PreviewView,
    PublishView,
)

_DRAFT = "blogs/<int:blog_id>/drafts/<int:draft_id>"

urlpatterns = [
    path("blogs/<int:blog_id>/drafts", DraftListView.as_view(), name="drafts"),
    path(_DRAFT, DraftView.as_view(), name="draft"),
    path(f"{_DRAFT}/publish", PublishView.as_view(), name="draft-publish"),
    path(f"{_DRAFT}/preview", PreviewLinkView.as_view(), name="draft-preview"),
    path(
        "blogs/<int:blog_id>/articles/<int:article_id>/drafts",
        ArticleDraftView.as_view(),
        name="article-drafts",
    ),
    path("previews/<str:token>", PreviewView.as_view(), name="preview"),
]
