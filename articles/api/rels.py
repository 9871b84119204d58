"""The pages of the blogs', articles', comments' and revisions' link relations (/docs/rels/{rel}),
which the `doc` curie names."""

from __future__ import annotations

from rest.docs import NEEDS_TOKEN, PAGE, Operation, Relation

_ARTICLE = (
    '{"id": 7, "title": "...", "content": "..." (left out when none), "slug": "a-title", '
    '"publishedAt": "2026-11-25T15:00:00Z", "tags": ["names"], "contentFormat": "text" or '
    '"markdown", "_links": {"curies", "self", "doc:blog" (with the blog\'s title), '
    '"doc:comments", "doc:revisions"}}'
)
_TAG = (
    '{"name": "Python", "slug": "python", "articleCount": 12, "_links": {"curies", "self", '
    '"doc:articles" (the blog\'s articles with the tag, ?tag=python)}}'
)
_ARTICLE_BODY = (
    '{"title": "at most 200 characters", "content": "optional text or null", "contentFormat": '
    '"text" or "markdown" (optional), "tags": ["1 to 50 characters", at most 20] (optional), '
    '"slug": "lower-case-letters-digits" (optional: made from the title)}'
)
_BLOG = (
    '{"id": 1, "title": "...", "description": "...", '
    '"_links": {"curies", "self", "doc:articles", "alternate" (the Atom feed, with its type), '
    '"doc:webhooks", "doc:tags"}}'
)
_COMMENT = (
    '{"id": 3, "author": "alice", "text": "...", "_links": {"curies", "self", "doc:article"}}'
)
_REVISION = (
    '{"revision": 3, "title": "...", "content": "..." (left out when none), "articleETag": '
    '"\\"...\\"" (the ETag the article had), "replacedAt": "2026-11-25T15:00:00Z", '
    '"replacedBy": "alice" (left out when unknown), "_links": {"curies", "self", "doc:article"}}'
)
_SEARCH = (
    "q (1 to 200 characters) searches title and content: on PostgreSQL full-text search in "
    'web-search syntax ("quoted phrase", or, -word; English stemming), the title weighing more '
    "than the content; on SQLite every word must occur in the title or the content "
    "(case-insensitive). sort is one of created, -created, updated, -updated, title, -title, "
    "or relevance (only with q; the default with q; without q the default is oldest first). "
    "Every page link keeps q and sort. A bad q or sort is a 400 problem. tag={slug} keeps "
    "the articles with that tag (a tag's slug, as doc:tags lists them); a page link keeps it."
)


def _page(description: str, total: str) -> Operation:
    return Operation("GET", description, "", PAGE.replace("{total}", total))


RELATIONS = {
    "blogs": Relation(
        "Blogs",
        "The paged list of every blog, oldest first. Templated: {?pageIndex,pageSize}.",
        (_page("A page of blogs.", "totalBlogs"),),
    ),
    "blog": Relation(
        "Blog",
        "One blog. In the API root the link is templated: expand {id} with a blog id. On an "
        "article the link carries the blog's title.",
        (Operation("GET", "The blog.", "", _BLOG),),
    ),
    "articles": Relation(
        "Articles",
        "A blog's articles, paged, oldest first. Templated: {?pageIndex,pageSize,q,sort,tag} "
        "(pageIndex from 1, pageSize 1 to 100, default 10). " + _SEARCH,
        (
            _page("A page of articles; with q, those that match it.", "totalArticles"),
            Operation(
                "POST",
                f"Write a new article (201, Location). {NEEDS_TOKEN} Idempotency-Key is honoured.",
                _ARTICLE_BODY,
                _ARTICLE,
            ),
        ),
    ),
    "search": Relation(
        "Search",
        "The articles of every blog (archived blogs included) that match q, a page at a time, "
        "each linking to its blog. In the API root; templated: {?pageIndex,pageSize,q,sort,tag}. "
        "q is required here. " + _SEARCH,
        (_page("A page of the articles that match q, most relevant first.", "totalArticles"),),
    ),
    "article": Relation(
        "Article",
        "One article. The same resource as the article's `self` link.",
        (
            Operation("GET", "The article (410 once deleted).", "", _ARTICLE),
            Operation(
                "PUT",
                f"Replace title and content as a whole; If-Match makes it safe. {NEEDS_TOKEN} "
                "A body without slug, tags or contentFormat keeps them; another slug changes it, "
                "the old one still leading to the article (by-slug, 409 when another article "
                "has or had it).",
                '{"title": "...", "content": "..." (left out: content removed), "slug", "tags", '
                '"contentFormat" (each optional: left out, kept)}',
                _ARTICLE,
            ),
            Operation(
                "DELETE",
                "Delete it for good (204, or 200 with Prefer: return=representation). "
                + NEEDS_TOKEN,
                "",
                '{"_links": {"curies", "doc:blog"}}',
            ),
        ),
    ),
    "comments": Relation(
        "Comments",
        "An article's comments, paged, oldest first. Templated: {?pageIndex,pageSize}.",
        (
            _page("A page of comments.", "totalComments"),
            Operation(
                "POST",
                f"Comment as the token's user (201, Location). {NEEDS_TOKEN}",
                '{"text": "1 to 10,000 characters"}',
                _COMMENT,
            ),
        ),
    ),
    "revisions": Relation(
        "Revisions",
        "An article's revisions: each replace (a PUT, or an edit in the admin) keeps the state it"
        " replaced. Newest first, paged like articles. Templated: {?pageIndex,pageSize}. At most"
        " ARTICLE_REVISIONS_KEPT (default 50) are kept, the oldest pruned; they go with the"
        " article when it is deleted (410). Read-only: to restore one, PUT its title and content"
        " to the article with If-Match.",
        (_page("A page of revisions.", "totalRevisions"),),
    ),
    "revision": Relation(
        "Revision",
        "One revision of an article: a state that a replace replaced, immutable. Its number is"
        " the article's version in that state, `articleETag` the ETag the article had then."
        " To restore it, PUT its title and content (content left out when it has none) to its"
        " doc:article link with the article's current ETag as If-Match (412 if the article"
        " changed meanwhile); that replace keeps the state it replaces as a new revision.",
        (
            Operation(
                "GET",
                "The revision (404 once pruned, 410 once the article is deleted).",
                "",
                _REVISION,
            ),
        ),
    ),
    "tags": Relation(
        "Tags",
        "A blog's tags, paged, by slug. Templated: {?pageIndex,pageSize}. Tags come with the "
        "articles that name them (tags in a POST or PUT); each links to its articles. An "
        "article by its slug: GET {blog}/articles/by-slug/{slug} answers 308 to it (old slugs "
        "too), 404 otherwise.",
        (
            _page(
                "A page of tags. Each item's self link is the tag (404 for a slug the blog has "
                "none of): " + _TAG,
                "totalTags",
            ),
        ),
    ),
    "comment": Relation(
        "Comment",
        "One comment.",
        (
            Operation("GET", "The comment.", "", _COMMENT),
            Operation(
                "DELETE", f"By the comment's author or an author of the blog (204). {NEEDS_TOKEN}"
            ),
        ),
    ),
}
