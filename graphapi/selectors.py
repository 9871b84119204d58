"""Reads for the GraphQL root resolvers (graphapi.loading then loads what lies below)."""

from __future__ import annotations

from typing import TypeVar

from django.db import models

from articles.models import Article
from blogs.models import Blog

ModelT = TypeVar("ModelT", bound=models.Model)


def parse_id(text: str) -> int | None:
    """The integer an ID argument names, or None when it names nothing."""
    # Ids are plain decimal numbers; int() would also take " 1", "1_0" or non-ASCII digits.
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def starwars_object(*, model: type[ModelT], object_id: str) -> ModelT | None:
    """One film, planet or person by its SWAPI id; None for an id that names nothing."""
    pk = parse_id(object_id)
    return None if pk is None else model._default_manager.filter(pk=pk).first()


def starwars_list(*, model: type[ModelT]) -> list[ModelT]:
    """Every film, planet or person, in SWAPI id order."""
    return list(model._default_manager.order_by("pk"))


def blog_for_reading(*, blog_id: str) -> Blog | None:
    """A blog as readers see it, archived ones included (they stay readable)."""
    pk = parse_id(blog_id)
    return None if pk is None else Blog.objects.filter(pk=pk).first()


def article_for_reading(*, blog_id: str, article_id: str) -> Article | None:
    """A live article of that blog: a deleted one, or one of another blog, is not found."""
    blog_pk, article_pk = parse_id(blog_id), parse_id(article_id)
    if blog_pk is None or article_pk is None:
        return None
    return Article.objects.live().in_blog(blog_pk).filter(pk=article_pk).first()
