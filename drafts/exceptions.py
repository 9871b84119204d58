"""Domain errors of the draft services; drafts.apps registers how the REST surface answers them."""

from __future__ import annotations


class DraftError(Exception):
    reason = "the draft cannot be changed now"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else self.reason


class DraftGone(DraftError):
    reason = "The draft was published or deleted."


class DraftNotDue(DraftError):
    """The scheduler's publication of an open draft not (or no longer) due at the time its message
    named: nothing to do."""

    reason = "The draft is not due."


class DraftVersionConflict(DraftError):
    reason = "The draft changed since that version."


class ArticleChangedSinceDraft(DraftError):
    """Refused (409), never a silent lost update."""

    def __init__(self, *, started_from: str, current: str) -> None:
        super().__init__()
        self.started_from = started_from
        self.current = current

    def __str__(self) -> str:
        return (
            f"The article changed since the draft started from it: the draft started from"
            f" version {self.started_from}, the article is now {self.current}."
        )


class InvalidPublishTime(DraftError):
    """Past, too far ahead or without its offset (drafts.scheduling.check_publish_time)."""

    reason = "The time must be in the future."


class PreviewLinkExpired(DraftError):
    reason = "The preview link expired; ask the draft's authors for a new one."


class PreviewLinkInvalid(DraftError):
    reason = "No such preview."
