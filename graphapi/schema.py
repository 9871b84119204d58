"""The GraphQL schema of the contract (section B): names and nullability exactly as stated there.

Every field is declared here, nullable as the contract writes it (DjangoObjectType would make
model fields non-null). The Star Wars types are served from the process's in-memory catalogue
(graphapi.catalogue): their fields are the records' own attributes, relations included, so a
document of any depth reads no table once the catalogue is built. Blogs and articles are live
data, read from the database on every request.
"""

from __future__ import annotations

import graphene
from graphene.types.resolver import attr_resolver
from graphene_django import DjangoObjectType

from articles.models import Article
from blogs.models import Blog
from graphapi.catalogue import (
    FilmRecord,
    PersonRecord,
    PlanetRecord,
    catalogue_for,
)
from graphapi.selectors import article_for_reading, blog_for_reading, parse_id

GREETING = "Hello from the Star Wars GraphQL API!"


class PersonType(graphene.ObjectType):
    id = graphene.ID()
    name = graphene.String()
    height = graphene.String(description="Centimetres, or 'unknown'.")
    mass = graphene.String(description="Kilograms, or 'unknown'.")
    hair_color = graphene.String()
    skin_color = graphene.String()
    eye_color = graphene.String()
    birth_year = graphene.String(description="BBY/ABY: before/after the Battle of Yavin.")
    gender = graphene.String()
    homeworld = graphene.Field(lambda: PlanetType)
    friends = graphene.List(lambda: PersonType, description="One-way, as in the classic example.")
    films = graphene.List(lambda: FilmType)

    class Meta:
        name = "Person"
        default_resolver = attr_resolver


class FilmType(graphene.ObjectType):
    id = graphene.ID()
    title = graphene.String()
    episode_id = graphene.Int()
    director = graphene.String()
    release_date = graphene.String(description="ISO 8601 date (YYYY-MM-DD).")
    planets = graphene.List(lambda: PlanetType)
    characters = graphene.List(lambda: PersonType)

    class Meta:
        name = "Film"
        default_resolver = attr_resolver


class PlanetType(graphene.ObjectType):
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
        name = "Planet"
        default_resolver = attr_resolver


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
    def resolve_person(root: None, info: graphene.ResolveInfo, id: str) -> PersonRecord | None:
        return catalogue_for(info).people.get(parse_id(id))

    @staticmethod
    def resolve_film(root: None, info: graphene.ResolveInfo, id: str) -> FilmRecord | None:
        return catalogue_for(info).films.get(parse_id(id))

    @staticmethod
    def resolve_planet(root: None, info: graphene.ResolveInfo, id: str) -> PlanetRecord | None:
        return catalogue_for(info).planets.get(parse_id(id))

    @staticmethod
    def resolve_all_films(root: None, info: graphene.ResolveInfo) -> tuple[FilmRecord, ...]:
        return catalogue_for(info).all_films

    @staticmethod
    def resolve_all_planets(root: None, info: graphene.ResolveInfo) -> tuple[PlanetRecord, ...]:
        return catalogue_for(info).all_planets

    @staticmethod
    def resolve_all_people(root: None, info: graphene.ResolveInfo) -> tuple[PersonRecord, ...]:
        return catalogue_for(info).all_people

    @staticmethod
    def resolve_blog(root: None, info: graphene.ResolveInfo, id: str) -> Blog | None:
        return blog_for_reading(blog_id=id)

    @staticmethod
    def resolve_article(
        root: None, info: graphene.ResolveInfo, blog_id: str, id: str
    ) -> Article | None:
        return article_for_reading(blog_id=blog_id, article_id=id)


schema = graphene.Schema(query=Query)
