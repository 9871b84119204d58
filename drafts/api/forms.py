"""HAL-FORMS `_templates` of the drafts (as articles.api.forms): create on a page of drafts;
replace, publish, schedule and delete on a draft."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from articles.api.forms import Property, content_property, template, title_property
from articles.models import SLUG_MAX_LENGTH
from blogs.models import Blog
from drafts.models import Draft
from rest.links import api_url

# RFC 3339 date-time with its offset.
RFC3339 = r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|z|[+-]\d\d:\d\d)"


def _fields(draft: Draft | None = None) -> tuple[Property, ...]:
    return (
        title_property(draft.title if draft else None),
        content_property(draft.content if draft else None),
        Property(
            name="contentFormat",
            prompt="Format (text or markdown)",
            regex="text|markdown",
            value=draft.content_format if draft else "text",
        ),
        Property(
            name="slug",
            prompt="Slug (made from the title when empty)",
            max_length=SLUG_MAX_LENGTH,
            regex=r"[-a-zA-Z0-9_]*",
            value=(draft.slug or None) if draft else None,
        ),
    )


def draft_page_templates(request: HttpRequest, blog: Blog) -> dict[str, Any]:
    if blog.archived:
        return {}
    return {
        "default": template(
            title="Write a new draft",
            method="POST",
            target=api_url(request, "drafts", blog_id=blog.pk),
            properties=_fields(),
        )
    }


def draft_templates(request: HttpRequest, draft: Draft) -> dict[str, Any]:
    if draft.blog.archived or draft.is_gone:
        return {}
    ids = {"blog_id": draft.blog_id, "draft_id": draft.pk}
    publish = api_url(request, "draft-publish", **ids)
    return {
        "default": template(
            title="Replace this draft",
            method="PUT",
            target=api_url(request, "draft", **ids),
            properties=_fields(draft),
        ),
        "publish": template(title="Publish now", method="POST", target=publish),
        "schedule": template(
            title="Publish at a time",
            method="POST",
            target=publish,
            properties=(
                Property(
                    name="publishAt",
                    prompt="Publish at (RFC 3339, e.g. 2026-12-01T09:00:00+01:00)",
                    required=True,
                    regex=RFC3339,
                ),
            ),
        ),
        "delete": template(
            title="Delete this draft", method="DELETE", target=api_url(request, "draft", **ids)
        ),
    }
