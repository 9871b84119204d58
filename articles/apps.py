from django.apps import AppConfig


class ArticlesConfig(AppConfig):
    name = "articles"
    verbose_name = "Articles and comments"

    def ready(self) -> None:
        from articles.api import rels
        from articles.exceptions import ArticleGone, ArticleLocked, BlogArchived, VersionConflict
        from articles.search import SearchError
        from rest.docs import document
        from rest.exceptions import register

        document(rels.RELATIONS)
        # How the REST surface answers the services' domain errors.
        register(
            BlogArchived,
            status=409,
            slug="blog-archived",
            detail="The blog is archived and read-only.",
        )
        register(
            ArticleLocked, status=423, slug="locked", detail="The article is locked by the editors."
        )
        register(ArticleGone, status=410, slug="gone", detail="The article was deleted.")
        register(
            VersionConflict,
            status=412,
            slug="precondition-failed",
            detail="The article changed since that version.",
        )
        # A search the database gave up on, or a `q`/`sort` refused: a 400 naming the parameter.
        register(SearchError, status=400, errors=lambda exc: {exc.parameter: [str(exc)]})
