from __future__ import annotations

from django.urls import path

from bench.peer import views

BLOG = "api/v1.2/blogs/<int:blog_id>"

urlpatterns = [
    path(f"{BLOG}/articles", views.ArticleCreateView.as_view()),
    path(f"{BLOG}/articles/<int:article_id>", views.ArticleView.as_view()),
    path(f"{BLOG}/articles/<int:article_id>/comments", views.CommentCreateView.as_view()),
]
