"""Conditional requests (RFC 9110 section 13), in the order of section 13.2.2: the one evaluator
of every cacheable resource (the API's views and the Atom feed).

Views call it after authentication, authorization and the existence check (a 401, 403, 404 or
410 wins over 412, as section 13.2.1 requires). Why not Django's `get_conditional_response`:
docs/decisions/etags.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.http import http_date, parse_etags, parse_http_date_safe, quote_etag
from rest_framework.response import Response

from core.edge import share
from core.negotiation import HTML_MEDIA_TYPE
from rest.exceptions import PreconditionFailed
from rest.negotiation import HAL_FORMS_MEDIA_TYPE

SAFE_METHODS = ("GET", "HEAD")
# The representations whose bytes differ from the JSON body of the same state, so have another
# strong tag (RFC 9110 8.8.3): the browsable API's page, and HAL-FORMS (the JSON body plus
# `_templates`). application/json and application/hal+json share one: the same bytes, and a
# client may switch.
OWN_TAG_MEDIA_TYPES = (HTML_MEDIA_TYPE, HAL_FORMS_MEDIA_TYPE)


def strong_etag(*parts: object) -> str:
    """A strong ETag from the values that identify one state of a resource (RFC 9110 8.8.3)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return quote_etag(digest)


@dataclass(frozen=True)
class Validators:
    etag: str  # quoted, strong: '"..."'
    last_modified: datetime

    @property
    def last_modified_seconds(self) -> int:
        return int(self.last_modified.timestamp())

    def apply(self, response: HttpResponse) -> HttpResponse:
        response["ETag"] = self.etag
        response["Last-Modified"] = http_date(self.last_modified_seconds)
        return response


def variant_tag(etag: str, media_type: str) -> str:
    """The tag of the `media_type` variant of the state whose JSON body is tagged `etag`."""
    return strong_etag(etag, media_type) if media_type in OWN_TAG_MEDIA_TYPES else etag


def tag_variant(request: HttpRequest, response: HttpResponse) -> None:
    # Views set the JSON body's tag; an HTML or HAL-FORMS answer gets its own.
    if response.has_header("ETag"):
        response["ETag"] = variant_tag(response["ETag"], rendered_media_type(request))


def rendered_media_type(request: HttpRequest) -> str:
    """The media type DRF's negotiation chose for this request's answer ("" before it ran)."""
    renderer = getattr(request, "accepted_renderer", None)
    return getattr(renderer, "media_type", "")


def wants_forms(request: HttpRequest) -> bool:
    """Whether the article resources carry `_templates` (articles.api.forms)."""
    return rendered_media_type(request) == HAL_FORMS_MEDIA_TYPE


def _etags(request: HttpRequest, header: str) -> list[str] | None:
    value = request.META.get(header)
    return None if value is None else parse_etags(value)


def if_match_passes(request: HttpRequest, validators: Validators) -> bool | None:
    """None when there is no If-Match; `*` matches any current representation.

    If-Match uses the strong comparison (RFC 9110 section 8.8.3.2): a weak tag never matches.
    Every variant's tag names the same state of the resource, which is what a write checks.
    """
    etags = _etags(request, "HTTP_IF_MATCH")
    if etags is None:
        return None
    tags = {validators.etag, *(variant_tag(validators.etag, t) for t in OWN_TAG_MEDIA_TYPES)}
    return etags == ["*"] or not tags.isdisjoint(etags)


def expected_version(request: HttpRequest, version: int) -> int | None:
    """The version a conditional write was checked against (`version`, the current one), for the
    services' compare-and-set: the write then happens only if the resource is still that version
    under the row lock, so neither an If-Match nor an If-Unmodified-Since write can overwrite a
    change made meanwhile. None for an unconditional write or `If-Match: *`."""
    if_match = request.META.get("HTTP_IF_MATCH")
    if if_match is not None:
        return None if if_match.strip() == "*" else version
    return version if request.META.get("HTTP_IF_UNMODIFIED_SINCE") else None


def evaluate(request: HttpRequest, validators: Validators) -> HttpResponse | None:
    """A 304 response for a read whose copy is current; PreconditionFailed for a failed
    precondition; None when the request goes ahead. `validators` are the JSON body's."""
    current = variant_tag(validators.etag, rendered_media_type(request))
    # Step 1 and 2: If-Match, else If-Unmodified-Since (a date condition is ignored when an
    # ETag condition of the same kind is present).
    match = if_match_passes(request, validators)
    if match is False:
        raise PreconditionFailed("If-Match does not match the current ETag.")
    if match is None:
        since = parse_http_date_safe(request.META.get("HTTP_IF_UNMODIFIED_SINCE", ""))
        if since is not None and validators.last_modified_seconds > since:
            raise PreconditionFailed("The resource was modified after If-Unmodified-Since.")
    # Step 3 and 4: If-None-Match, else If-Modified-Since (reads only).
    none_match = _etags(request, "HTTP_IF_NONE_MATCH")
    if none_match is not None:
        # Weak comparison (section 13.1.2); the current tag is strong.
        if none_match == ["*"] or current in {tag.removeprefix("W/") for tag in none_match}:
            if request.method in SAFE_METHODS:
                return not_modified(validators)
            raise PreconditionFailed("If-None-Match matches the current ETag.")
        return None
    if request.method in SAFE_METHODS:
        since = parse_http_date_safe(request.META.get("HTTP_IF_MODIFIED_SINCE", ""))
        if since is not None and validators.last_modified_seconds <= since:
            return not_modified(validators)
    return None


def not_modified(validators: Validators) -> HttpResponse:
    # RFC 9110 15.4.5: a 304 has no content, so no Content-Type (HttpResponseNotModified drops
    # the one HttpResponse would default to); the validators are sent.
    return validators.apply(HttpResponseNotModified())


def conditional_read(
    request: HttpRequest,
    validators: Validators,
    generations: Iterable[str],
    body: Any | Callable[[], Any],
) -> HttpResponse:
    """304 for a current copy, else 200 with `body` and `validators`, either shareable by the
    edge under `generations` (core.edge). A callable `body` is built only for the 200."""
    response = evaluate(request, validators) or validators.apply(
        Response(body() if callable(body) else body)
    )
    return share(response, generations)
