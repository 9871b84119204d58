"""The admin's preview link of a draft: the same signed token the API's `doc:preview` makes
(drafts.services.preview_token), on the public origin."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from drafts.models import Draft
from drafts.services import preview_token
from rest.links import CANONICAL_NAMESPACE


def preview_url(draft: Draft) -> str:
    token, _ = preview_token(draft)
    return settings.PUBLIC_URL + reverse(f"{CANONICAL_NAMESPACE}:preview", kwargs={"token": token})
