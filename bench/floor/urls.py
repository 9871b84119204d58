from __future__ import annotations

from django.urls import path

from bench.floor import views

urlpatterns = [
    path("api/v1.2/blogs/<int:blog_id>/articles/<int:article_id>", views.article),
    path("api/v1.2/blogs/<int:blog_id>/articles", views.article_page),
    path("bench/count/<int:blog_id>", views.article_count_scan),
]
