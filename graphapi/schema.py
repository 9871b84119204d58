"""The GraphQL schema of the contract (section B): names and nullability exactly as stated there.

Every field is declared here because DjangoObjectType would make model fields non-null. The Star
Wars fields are the catalogue records' own attributes (graphapi.catalogue).
"""

from __future__ import annotations

import graphene
from django.conf import settings
from graphene.types.resolver import attr_resolver
from graphene_django import DjangoObjectType

from articles import content as article_content
from articles.models import Article, ArticleRevision
from articles.search import QUERY_MAX_LENGTH, SORTS
from articles.tags import names_of
from blogs.models import Blog
from core.paging import Page
from graphapi.catalogue import FilmRecord, PersonRecord, PlanetRecord, catalogue_for
from graphapi.selectors import (
    article_for_reading,
    blog_article_page,
    blog_for_reading,
    blog_tags,
    keep_revisions,
    parse_id,
    revisions_of,
)

GREETING = "Hello from the Star Wars GraphQL API!"


class PersonType(graphene.ObjectType):
    id = graphene.ID(description="The SWAPI number: Luke Skywalker is 1.")
    name = graphene.String(description="The person's name.")
    height = graphene.String(description="Centimetres, or 'unknown'.")
    mass = graphene.String(description="Kilograms, or 'unknown'.")
    hair_color = graphene.String(
        description="As SWAPI writes it: 'brown', 'brown, grey', 'none', 'n/a' (droids)."
    )
    skin_color = graphene.String(description="As SWAPI writes it: 'fair', 'gold', 'green' ...")
    eye_color = graphene.String(description="As SWAPI writes it, or 'unknown'.")
    birth_year = graphene.String(description="BBY/ABY: before/after the Battle of Yavin.")
    gender = graphene.String(
        description="'male', 'female', 'hermaphrodite', 'none' or 'n/a' (droids)."
    )
    homeworld = graphene.Field(lambda: PlanetType, description="The planet the person is from.")
    friends = graphene.List(lambda: PersonType, description="One-way, as in the classic example.")
    films = graphene.List(lambda: FilmType, description="The films the person appears in.")

    class Meta:
        name = "Person"
        description = "A character of the Star Wars films (SWAPI's people)."
        default_resolver = attr_resolver


class FilmType(graphene.ObjectType):
    id = graphene.ID(description="The SWAPI number: 1 is A New Hope.")
    title = graphene.String(description="The film's title.")
    episode_id = graphene.Int(description="The episode number: A New Hope is episode 4.")
    director = graphene.String(description="The director's name.")
    release_date = graphene.String(description="ISO 8601 date (YYYY-MM-DD).")
    planets = graphene.List(lambda: PlanetType, description="The planets the film shows.")
    characters = graphene.List(lambda: PersonType, description="The people in the film.")

    class Meta:
        name = "Film"
        description = "A Star Wars film (SWAPI's six films)."
        default_resolver = attr_resolver


class PlanetType(graphene.ObjectType):
    id = graphene.ID(description="The SWAPI number: Tatooine is 1.")
    name = graphene.String(description="The planet's name.")
    climate = graphene.String(description="As SWAPI writes it: 'arid', 'temperate, tropical' ...")
    terrain = graphene.String(description="As SWAPI writes it: 'desert', 'grasslands' ...")
    population = graphene.String(description="A number, or 'unknown'.")
    residents = graphene.List(
        lambda: PersonType, description="The people whose homeworld this planet is."
    )
    films = graphene.List(lambda: FilmType, description="The films the planet appears in.")

    class Meta:
        name = "Planet"
        description = "A planet of the Star Wars films (SWAPI's planets)."
        default_resolver = attr_resolver


def _paging(items: str) -> dict[str, graphene.Int]:
    """The arguments of a page, as REST's query parameters of the same names."""
    return {
        "page_index": graphene.Int(default_value=1, description="1-based page number."),
        "page_size": graphene.Int(
            default_value=settings.PAGE_SIZE_DEFAULT,
            description=f"{items} per page, 1 to {settings.PAGE_SIZE_MAX}.",
        ),
    }


class TagType(graphene.ObjectType):
    name = graphene.String(description="The tag's name, as an author wrote it.")
    slug = graphene.String(description="What `articles(tag:)` takes.")
    article_count = graphene.Int(description="The live articles with the tag.")

    class Meta:
        name = "Tag"
        description = "A tag of a blog, as GET /api/v1.2/blogs/{id}/tags/{slug} answers it."


class ArticlePageType(graphene.ObjectType):
    items = graphene.NonNull(
        graphene.List(graphene.NonNull(lambda: ArticleType)),
        description="The page's articles, in the page's order.",
    )
    count = graphene.Int(
        required=True, source="total", description="Articles in all pages (REST's totalArticles)."
    )
    page_index = graphene.Int(required=True, description="This page's number, from 1.")
    page_size = graphene.Int(required=True, description="Articles per page.")
    page_count = graphene.Int(
        required=True,
        source="total_pages",
        description="Number of pages (REST's totalPages); 0 when none match.",
    )

    class Meta:
        name = "ArticlePage"
        description = "A page of articles, as GET /api/v1.2/blogs/{id}/articles answers it."

    @staticmethod
    def resolve_items(page: Page, info: graphene.ResolveInfo) -> list[Article]:
        return keep_revisions(list(page.items), info)


class BlogType(DjangoObjectType):
    id = graphene.ID(description="The blog's id, as in /api/v1.2/blogs/{id}.")
    title = graphene.String(description="The blog's title.")
    description = graphene.String(description="What the blog is about.")
    articles = graphene.Field(
        ArticlePageType,
        description="A page of the blog's live articles, searched and ordered as REST's"
        " /api/v1.2/blogs/{id}/articles?q=&sort= (a bad argument is an error).",
        **_paging("Articles"),
        q=graphene.String(
            description=f"Search text, 1 to {QUERY_MAX_LENGTH} characters: full-text search in"
            " web-search syntax on PostgreSQL, every word (case-insensitive) on SQLite, as REST's"
            " `q`."
        ),
        sort=graphene.String(
            description=f"One of {', '.join(SORTS)} (as REST's `sort`); `relevance` only with"
            " q. Default: relevance with q, else oldest first."
        ),
        tag=graphene.String(
            description="Only the articles with this tag: a tag's slug, as REST's `tag`."
        ),
    )
    tags = graphene.List(
        TagType,
        description="A page of the blog's tags by slug, as GET /api/v1.2/blogs/{id}/tags.",
        **_paging("Tags"),
    )

    class Meta:
        model = Blog
        name = "Blog"
        description = "A blog, read-only: the same data as GET /api/v1.2/blogs/{id}."
        fields = ("id", "title", "description")

    @staticmethod
    def resolve_articles(blog: Blog, info: graphene.ResolveInfo, **arguments) -> Page:
        return blog_article_page(blog=blog, **arguments)

    @staticmethod
    def resolve_tags(blog: Blog, info: graphene.ResolveInfo, **arguments) -> list:
        return blog_tags(blog=blog, **arguments)


class RevisionType(graphene.ObjectType):
    revision = graphene.Int(
        source="version", description="The revision's number: the article's version then."
    )
    title = graphene.String(description="The title the article had.")
    content = graphene.String(description="The content it had; null when none.")
    article_etag = graphene.String(
        description="The ETag the article had in this state (its REST representation)."
    )
    replaced_at = graphene.DateTime(
        source="history_date", description="When a replace replaced this state."
    )
    replaced_by = graphene.String(description="The username of who replaced it; null when unknown.")

    class Meta:
        name = "Revision"
        description = (
            "A state of an article that a replace replaced: the same data as GET"
            " /api/v1.2/blogs/{blogId}/articles/{id}/revisions/{revision}."
        )

    @staticmethod
    def resolve_replaced_by(revision: ArticleRevision, info: graphene.ResolveInfo) -> str | None:
        user = revision.history_user
        return None if user is None else user.get_username()


class ArticleType(DjangoObjectType):
    id = graphene.ID(description="The article's id, as in /api/v1.2/blogs/{blogId}/articles/{id}.")
    title = graphene.String(description="The article's title.")
    content = graphene.String(description="null when the article has no content.")
    content_html = graphene.String(
        description="The content as sanitised HTML (Markdown rendered as CommonMark, plain text"
        " escaped into paragraphs; REST's contentHtml); null when the article has no content."
    )
    excerpt = graphene.String(
        description="The content's first words as plain text (REST's excerpt); null when the"
        " article has no content."
    )
    blog = graphene.Field(BlogType, description="The blog the article belongs to.")
    slug = graphene.String(description="The article's readable name, unique in its blog.")
    published_at = graphene.DateTime(description="When the article was published.")
    tags = graphene.List(graphene.String, description="The article's tag names.")
    content_format = graphene.String(description="How `content` is written: `text` or `markdown`.")
    revisions = graphene.List(
        RevisionType,
        description="The states the article's replaces replaced, newest first (at most"
        " ARTICLE_REVISIONS_KEPT), as GET /api/v1.2/blogs/{blogId}/articles/{id}/revisions.",
    )

    class Meta:
        model = Article
        name = "Article"
        description = (
            "An article, read-only: the same data as GET /api/v1.2/blogs/{blogId}/articles/{id}."
        )
        fields = ("id", "title", "content", "blog")

    @staticmethod
    def resolve_content_html(article: Article, info: graphene.ResolveInfo) -> str | None:
        if article.content is None:
            return None
        return article_content.render_html(article.content, article.content_format)

    @staticmethod
    def resolve_excerpt(article: Article, info: graphene.ResolveInfo) -> str | None:
        if article.content is None:
            return None
        return article_content.excerpt(article.content, article.content_format)

    @staticmethod
    def resolve_revisions(article: Article, info: graphene.ResolveInfo) -> list[ArticleRevision]:
        return revisions_of(article)

    @staticmethod
    def resolve_tags(article: Article, info: graphene.ResolveInfo) -> list[str]:
        return names_of(article)


class Query(graphene.ObjectType):
    # Resolved by the default resolver, which answers its default_value on a None root.
    hello = graphene.String(description="A fixed greeting.", default_value=GREETING)
    person = graphene.Field(
        PersonType,
        id=graphene.ID(required=True, description="The person's SWAPI number."),
        description="One person, or null when no person has that id.",
    )
    film = graphene.Field(
        FilmType,
        id=graphene.ID(required=True, description="The film's SWAPI number."),
        description="One film, or null when no film has that id.",
    )
    planet = graphene.Field(
        PlanetType,
        id=graphene.ID(required=True, description="The planet's SWAPI number."),
        description="One planet, or null when no planet has that id.",
    )
    all_films = graphene.List(FilmType, description="Every film, by SWAPI number.")
    all_planets = graphene.List(PlanetType, description="Every planet, by SWAPI number.")
    all_people = graphene.List(PersonType, description="Every person, by SWAPI number.")
    blog = graphene.Field(
        BlogType,
        id=graphene.ID(required=True, description="The blog's id."),
        description="One blog (archived ones included), or null when there is none.",
    )
    article = graphene.Field(
        ArticleType,
        blog_id=graphene.ID(required=True, description="The id of the article's blog."),
        id=graphene.ID(required=True, description="The article's id."),
        description="One live article of that blog, or null (a deleted article, or one of"
        " another blog, is null; REST answers 410 or 404).",
    )

    class Meta:
        description = "The Star Wars films, planets and people, and the blogs' articles."

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
