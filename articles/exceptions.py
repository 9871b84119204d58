"""Domain errors raised by the article services; each surface maps them to its own answer."""

from django.conf import settings


class ArticleError(Exception):
    """A write that the state of the blog or article forbids."""

    reason = "the article cannot be changed now"

    def __str__(self) -> str:
        return self.reason


class BlogArchived(ArticleError):
    reason = "the blog is archived and read-only"


class ArticleLocked(ArticleError):
    reason = "the article is locked by the editors"


class ArticleGone(ArticleError):
    reason = "the article was deleted"


class VersionConflict(ArticleError):
    reason = "the article changed since the version the write was based on"

    def __init__(self, current_version: int) -> None:
        super().__init__()
        self.current_version = current_version


class SlugInvalid(ArticleError):
    reason = "a slug is 1 to 220 lower-case letters, digits, '_' and '-' (not at an end)"


class SlugTaken(ArticleError):
    reason = "another article of the blog has (or had) that slug"


class ContentTooComplex(ArticleError):
    """Markdown that cannot be rendered within MARKDOWN_RENDER_BUDGET_MS of CPU time
    (articles.content): a write refuses it, a publication of a draft stored before the bound
    too (the scheduler then unschedules it, the admin says why, as for the other refusals)."""

    def __str__(self) -> str:
        return (
            "The Markdown is too complex to render within the budget of"
            f" {settings.MARKDOWN_RENDER_BUDGET_MS} ms of CPU time; simplify it (fewer unclosed"
            " brackets or emphasis markers) or send it as text."
        )
