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
        for error, status, slug, detail in (
            (BlogArchived, 409, "blog-archived", "The blog is archived and read-only."),
            (ArticleLocked, 423, "locked", "The article is locked by the editors."),
            (ArticleGone, 410, "gone", "The article was deleted."),
            (
                VersionConflict,
                412,
                "precondition-failed",
                "The article changed since that version.",
            ),
        ):
            register(error, status=status, slug=slug, detail=detail)
        # A search the database gave up on, or a `q`/`sort` refused: a 400 naming the parameter.
        register(SearchError, status=400, errors=lambda exc: {exc.parameter: [str(exc)]})
