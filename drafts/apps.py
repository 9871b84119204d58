from django.apps import AppConfig


class DraftsConfig(AppConfig):
    name = "drafts"
    verbose_name = "Drafts"

    def ready(self) -> None:
        from drafts import exceptions
        from drafts.api import rels
        from rest.docs import document
        from rest.exceptions import UnprocessableContent, register

        document(rels.RELATIONS)
        register(exceptions.DraftGone, status=410, slug="gone")
        register(exceptions.DraftVersionConflict, status=412, slug="precondition-failed")
        # Both versions named, by their ETags: the draft's starting point and the article now.
        register(
            exceptions.ArticleChangedSinceDraft,
            status=409,
            errors=lambda exc: {
                "draftStartedFrom": [exc.started_from],
                "articleETag": [exc.current],
            },
        )
        # As the body's other field errors: the time is one of them.
        register(
            exceptions.InvalidPublishTime,
            status=422,
            detail=UnprocessableContent.default_detail,
            errors=lambda exc: {"publishAt": [str(exc)]},
        )
        register(exceptions.PreviewLinkExpired, status=410, slug="gone")
        register(exceptions.PreviewLinkInvalid, status=404)
