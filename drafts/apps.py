from django.apps import AppConfig


class DraftsConfig(AppConfig):
    name = "drafts"
    verbose_name = "Drafts"

    def ready(self) -> None:
        from drafts.api import rels
        from drafts.exceptions import (
            ArticleChangedSinceDraft,
            DraftGone,
            DraftVersionConflict,
            InvalidPublishTime,
            PreviewLinkExpired,
            PreviewLinkInvalid,
        )
        from rest.docs import document
        from rest.exceptions import register

        document(rels.RELATIONS)
        register(DraftGone, status=410, slug="gone")
        register(
            DraftVersionConflict,
            status=412,
            slug="precondition-failed",
            detail="The draft changed since that version.",
        )
        # Both versions named, by their ETags: the draft's starting point and the article now.
        register(
            ArticleChangedSinceDraft,
            status=409,
            errors=lambda exc: {
                "draftStartedFrom": [exc.started_from],
                "articleETag": [exc.current],
            },
        )
        # As the body's other field errors: the time is one of them.
        register(
            InvalidPublishTime,
            status=422,
            detail="The body has wrong or missing fields.",
            errors=lambda exc: {"publishAt": [str(exc)]},
        )
        register(PreviewLinkExpired, status=410, slug="gone")
        register(PreviewLinkInvalid, status=404)
