"""The pages of the drafts' link relations (/docs/rels/{rel}), which the `doc` curie names."""

from __future__ import annotations

from rest.docs import AUTHORS_ONLY, PAGE, Operation, Relation

_DRAFT = (
    '{"id": 3, "title": "...", "content"?: "...", "contentFormat": "text" | "markdown", '
    '"tags": ["..."], "slug"?: "...", "publishAt": RFC 3339 or null, "_links": {"curies", '
    '"self", "doc:blog", "doc:article" (when it edits an article), "doc:publish", "doc:preview"}}'
)
_INPUT = (
    '{"title": "...", "content"?: "...", "contentFormat"?: "text" | "markdown", '
    '"tags"?: ["..."], "slug"?: "..."}'
)

RELATIONS = {
    "drafts": Relation(
        "Drafts",
        "A blog's open drafts, paged, oldest first. Templated: {?pageIndex,pageSize}. "
        + AUTHORS_ONLY,
        (
            Operation("GET", "A page of drafts.", "", PAGE.replace("{total}", "totalDrafts")),
            Operation("POST", "Write a new draft (201, Location).", _INPUT, _DRAFT),
        ),
    ),
    "publish": Relation(
        "Publish",
        "Publishing a draft, now or at a time. " + AUTHORS_ONLY,
        (
            Operation(
                "POST",
                "{} publishes now: 201 with the new article and its Location, or 200 with the"
                " replaced article; 409 when the article changed since the draft started from"
                " it. With publishAt: scheduled (202 with the draft); 422 for a past time.",
                '{} or {"publishAt": "2026-12-01T09:00:00+01:00"}',
                "the article (publish now) or the draft (scheduled)",
            ),
            Operation("DELETE", "Unschedule (204)."),
        ),
    ),
    "preview": Relation(
        "Preview",
        "A link that shows the draft without a token, signed, for PREVIEW_LINK_HOURS (48). "
        + AUTHORS_ONLY,
        (
            Operation(
                "POST",
                "A new preview link (201). GET of its href needs no token: 410 once expired,"
                " 404 once the draft is published or deleted.",
                "",
                '{"href": "https://.../api/v1.2/previews/...", "expiresAt": "RFC 3339"}',
            ),
        ),
    ),
}
