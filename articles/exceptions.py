"""Domain errors raised by the article services; each surface maps them to its own answer."""


class ArticleError(Exception):
    """A write that the state of the blog or article forbids."""


class BlogArchived(ArticleError):
    """The blog was archived by the editors and is read-only."""


class ArticleLocked(ArticleError):
    """An editor locked the article: it can be neither replaced nor deleted."""


class ArticleGone(ArticleError):
    """The article was deleted; it stays gone."""


class VersionConflict(ArticleError):
    """The article changed since the version the client based its write on."""

    def __init__(self, current_version: int) -> None:
        super().__init__(f"the article is at version {current_version}")
        self.current_version = current_version
