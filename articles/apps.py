from django.apps import AppConfig


class ArticlesConfig(AppConfig):
    name = "articles"
    verbose_name = "Articles and comments"

    def ready(self) -> None:
        from articles.api import rels
        from articles.exceptions import (
            ArticleGone,
            ArticleLocked,
            BlogArchived,
            ContentTooComplex,
            SlugInvalid,
            SlugTaken,
            VersionConflict,
        )
        from articles.pages import RETRY_AFTER_SECONDS, PageTooSlow
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
        # A slug given in a body: refused (400) or another article's (409), naming `slug`.
        register(SlugInvalid, status=400, errors=lambda exc: {"slug": [str(exc)]})
        register(SlugTaken, status=409, slug="slug-taken", errors=lambda exc: {"slug": [str(exc)]})
        # Markdown over its render budget (articles.content): nothing is written.
        register(
            ContentTooComplex,
            status=422,
            slug="content-too-complex",
            errors=lambda exc: {"content": [str(exc)]},
        )
        # A search the database gave up on, or a `q`/`sort` refused: a 400 naming the parameter.
        register(SearchError, status=400, errors=lambda exc: {exc.parameter: [str(exc)]})
        # A page the database could not read in time (the service is busy): retry, or a page
        # nearer an end (docs/decisions/deep-pages.md).
        register(
            PageTooSlow,
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
