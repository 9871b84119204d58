"""The GraphQL schema of the contract (section B): names and nullability exactly as stated there.

DjangoObjectType would make model fields non-null; every field is declared here instead, so the
schema says what the contract says. Relations resolve from the prefetch cache that the root
resolvers fill (see graphapi.prefetch), so nested selections cost one query per level.
"""

from __future__ import annotations

import graphene
from graphene_django import DjangoObjectType

from articles.models import Article
from blogs.models import Blog
from graphapi.models import Film, Person, Planet
from graphapi.prefetch import prefetch_lookups
from graphapi.selectors import (
    article_for_reading,
    blog_for_reading,
    starwars_list,
    starwars_object,
)

GREETING = "Hello from the Star Wars GraphQL API!"


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
    def resolve_friends(person: Person, info: graphene.ResolveInfo) -> list[Person]:
        return list(person.friends.all())

    @staticmethod
    def resolve_films(person: Person, info: graphene.ResolveInfo) -> list[Film]:
        return list(person.films.all())


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
        return list(film.planets.all())

    @staticmethod
    def resolve_characters(film: Film, info: graphene.ResolveInfo) -> list[Person]:
        return list(film.characters.all())


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
        return list(planet.residents.all())

    @staticmethod
    def resolve_films(planet: Planet, info: graphene.ResolveInfo) -> list[Film]:
        return list(planet.films.all())


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
    def resolve_person(root: None, info: graphene.ResolveInfo, id: str) -> Person | None:
        return starwars_object(model=Person, object_id=id, prefetch=prefetch_lookups(info, Person))

    @staticmethod
    def resolve_film(root: None, info: graphene.ResolveInfo, id: str) -> Film | None:
        return starwars_object(model=Film, object_id=id, prefetch=prefetch_lookups(info, Film))

    @staticmethod
    def resolve_planet(root: None, info: graphene.ResolveInfo, id: str) -> Planet | None:
        return starwars_object(model=Planet, object_id=id, prefetch=prefetch_lookups(info, Planet))

    @staticmethod
    def resolve_all_films(root: None, info: graphene.ResolveInfo) -> list[Film]:
        return starwars_list(model=Film, prefetch=prefetch_lookups(info, Film))

    @staticmethod
    def resolve_all_planets(root: None, info: graphene.ResolveInfo) -> list[Planet]:
        return starwars_list(model=Planet, prefetch=prefetch_lookups(info, Planet))

    @staticmethod
    def resolve_all_people(root: None, info: graphene.ResolveInfo) -> list[Person]:
        return starwars_list(model=Person, prefetch=prefetch_lookups(info, Person))

    @staticmethod
    def resolve_blog(root: None, info: graphene.ResolveInfo, id: str) -> Blog | None:
        return blog_for_reading(blog_id=id)

    @staticmethod
    def resolve_article(
        root: None, info: graphene.ResolveInfo, blog_id: str, id: str
    ) -> Article | None:
        return article_for_reading(
            blog_id=blog_id, article_id=id, prefetch=prefetch_lookups(info, Article)
        )


schema = graphene.Schema(query=Query)
