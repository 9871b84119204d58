"""The GraphQL schema of the contract (section B): names and nullability exactly as stated there.

DjangoObjectType would make model fields non-null; every field is declared here instead, so the
schema says what the contract says. Relations resolve from what the root resolvers loaded for
the whole selection (see graphapi.loading), so nested selections cost one query per level.
"""

from __future__ import annotations

from typing import TypeVar

import graphene
from django.db import models
from graphene_django import DjangoObjectType

from articles.models import Article
from blogs.models import Blog
from graphapi.loading import related_list, related_object, with_selection
from graphapi.models import Film, Person, Planet
from graphapi.selectors import (
    article_for_reading,
    blog_for_reading,
    starwars_list,
    starwars_object,
)

ModelT = TypeVar("ModelT", bound=models.Model)

GREETING = "Hello from the Star Wars GraphQL API!"


def _one(info: graphene.ResolveInfo, model: type[ModelT], obj: ModelT | None) -> ModelT | None:
    """A root object with the relations its selection walks, or None."""
    return None if obj is None else with_selection(info, model, [obj])[0]


class PersonType(DjangoObjectType):
    id = graphene.ID()
    name = graphene.String()
    height = graphene.String(description="Centimetres, or 'unknown'.")
    mass = graphene.String(description="Kilograms, or 'unknown'.")
    hair_color = graphene.String()
    skin_color = graphene.String()
    eye_color = graphene.String()
    birth_year = graphene.String(description="BBY/ABY: before/after the Battle of Yavin.")
    gender = graphene.String()
    friends = graphene.List(lambda: PersonType, description="One-way, as in the classic example.")
    homeworld = graphene.Field(lambda: PlanetType)
    films = graphene.List(lambda: FilmType)

    class Meta:
        model = Person
        name = "Person"
        fields = (
            "id",
            "name",
            "height",
            "mass",
            "hair_color",
            "skin_color",
            "eye_color",
            "birth_year",
            "gender",
            "friends",
            "homeworld",
            "films",
        )

    @staticmethod
    def resolve_homeworld(person: Person, info: graphene.ResolveInfo) -> Planet | None:
        return related_object(info, person, "homeworld")

    @staticmethod
    def resolve_friends(person: Person, info: graphene.ResolveInfo) -> list[Person]:
        return related_list(info, person, "friends")

    @staticmethod
    def resolve_films(person: Person, info: graphene.ResolveInfo) -> list[Film]:
        return related_list(info, person, "films")


class FilmType(DjangoObjectType):
    id = graphene.ID()
    title = graphene.String()
    episode_id = graphene.Int()
    director = graphene.String()
    release_date = graphene.String(description="ISO 8601 date (YYYY-MM-DD).")
    planets = graphene.List(lambda: PlanetType)
    characters = graphene.List(lambda: PersonType)

    class Meta:
        model = Film
        name = "Film"
        fields = ("id", "title", "episode_id", "director", "release_date", "planets", "characters")

    @staticmethod
    def resolve_release_date(film: Film, info: graphene.ResolveInfo) -> str:
        return film.release_date.isoformat()

    @staticmethod
    def resolve_planets(film: Film, info: graphene.ResolveInfo) -> list[Planet]:
        return related_list(info, film, "planets")

    @staticmethod
    def resolve_characters(film: Film, info: graphene.ResolveInfo) -> list[Person]:
        return related_list(info, film, "characters")


class PlanetType(DjangoObjectType):
    id = graphene.ID()
    name = graphene.String()
    climate = graphene.String()
    terrain = graphene.String()
    population = graphene.String(description="A number, or 'unknown'.")
    residents = graphene.List(
        lambda: PersonType, description="The people whose homeworld this planet is."
    )
    films = graphene.List(lambda: FilmType)

    class Meta:
        model = Planet
        name = "Planet"
        fields = ("id", "name", "climate", "terrain", "population", "residents", "films")

    @staticmethod
    def resolve_residents(planet: Planet, info: graphene.ResolveInfo) -> list[Person]:
        return related_list(info, planet, "residents")

    @staticmethod
    def resolve_films(planet: Planet, info: graphene.ResolveInfo) -> list[Film]:
        return related_list(info, planet, "films")


class BlogType(DjangoObjectType):
    """Read-only, the same data as GET /api/v1.2/blogs/{id}."""

    id = graphene.ID()
    title = graphene.String()
    description = graphene.String()

    class Meta:
        model = Blog
        name = "Blog"
        fields = ("id", "title", "description")


class ArticleType(DjangoObjectType):
    """Read-only, the same data as GET /api/v1.2/blogs/{blogId}/articles/{id}."""

    id = graphene.ID()
    title = graphene.String()
    content = graphene.String(description="null when the article has no content.")
    blog = graphene.Field(BlogType)

    class Meta:
        model = Article
        name = "Article"
        fields = ("id", "title", "content", "blog")

    @staticmethod
    def resolve_blog(article: Article, info: graphene.ResolveInfo) -> Blog | None:
        return related_object(info, article, "blog")


class Query(graphene.ObjectType):
    hello = graphene.String(description="A fixed greeting.")
    person = graphene.Field(PersonType, id=graphene.ID(required=True))
    film = graphene.Field(FilmType, id=graphene.ID(required=True))
    planet = graphene.Field(PlanetType, id=graphene.ID(required=True))
    all_films = graphene.List(FilmType)
    all_planets = graphene.List(PlanetType)
    all_people = graphene.List(PersonType)
    blog = graphene.Field(BlogType, id=graphene.ID(required=True))
    article = graphene.Field(
        ArticleType, blog_id=graphene.ID(required=True), id=graphene.ID(required=True)
    )

    @staticmethod
    def resolve_hello(root: None, info: graphene.ResolveInfo) -> str:
        return GREETING

    @staticmethod
    def resolve_person(root: None, info: graphene.ResolveInfo, id: str) -> Person | None:
        return _one(info, Person, starwars_object(model=Person, object_id=id))

    @staticmethod
    def resolve_film(root: None, info: graphene.ResolveInfo, id: str) -> Film | None:
        return _one(info, Film, starwars_object(model=Film, object_id=id))

    @staticmethod
    def resolve_planet(root: None, info: graphene.ResolveInfo, id: str) -> Planet | None:
        return _one(info, Planet, starwars_object(model=Planet, object_id=id))

    @staticmethod
    def resolve_all_films(root: None, info: graphene.ResolveInfo) -> list[Film]:
        return with_selection(info, Film, starwars_list(model=Film))

    @staticmethod
    def resolve_all_planets(root: None, info: graphene.ResolveInfo) -> list[Planet]:
        return with_selection(info, Planet, starwars_list(model=Planet))

    @staticmethod
    def resolve_all_people(root: None, info: graphene.ResolveInfo) -> list[Person]:
        return with_selection(info, Person, starwars_list(model=Person))

    @staticmethod
    def resolve_blog(root: None, info: graphene.ResolveInfo, id: str) -> Blog | None:
        return blog_for_reading(blog_id=id)

    @staticmethod
    def resolve_article(
        root: None, info: graphene.ResolveInfo, blog_id: str, id: str
    ) -> Article | None:
        return _one(info, Article, article_for_reading(blog_id=blog_id, article_id=id))


schema = graphene.Schema(query=Query)
