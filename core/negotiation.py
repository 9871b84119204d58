"""Content negotiation (RFC 9110 12.5.1) for every surface: which of the media types a resource
offers the client's Accept header ranks highest. The ranges are parsed by Django's MediaType."""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.http import HttpRequest
from django.http.request import MediaType

HTML_MEDIA_TYPE = "text/html"
# As DRF's negotiation: more ranges or longer ones than any real client sends are not read.
MAX_RANGES = 64
MAX_RANGE_CHARS = 256
# WHATWG Fetch: a browser's navigation sends `text/html,application/xhtml+xml,...`. API
# clients that want HTML name text/html, not XHTML.
_NAVIGATION_TYPES = frozenset({HTML_MEDIA_TYPE, "application/xhtml+xml"})
# RFC 9110 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
_QVALUE = re.compile(r"0(\.\d{0,3})?|1(\.0{0,3})?")


def accepted_ranges(accept: str | None) -> list[MediaType]:
    """The media ranges of an Accept header, q=0 ones included (no header: `*/*`)."""
    ranges = []
    for token in (accept or "*/*").split(",", MAX_RANGES)[:MAX_RANGES]:
        if not token.strip() or len(token) > MAX_RANGE_CHARS:
            continue
        try:
            media_range = MediaType(token)
        except ValueError:  # a parameter Django cannot decode (RFC 2231): read without them
            media_range = MediaType(token.partition(";")[0])
        # A range with a weight outside RFC 9110's grammar is not read (Django would take 1).
        if _QVALUE.fullmatch(media_range.params.get("q", "1")):
            ranges.append(media_range)
    return ranges


def best_match(accept: str | None, offered: Sequence[str]) -> tuple[str, MediaType] | None:
    """The offered media type that `accept` ranks highest, with the range that ranked it; None
    when none is acceptable (docs/decisions/negotiation.md: why not `get_preferred_type`)."""
    ranges = accepted_ranges(accept)
    best: tuple[tuple[float, int, int], str, MediaType] | None = None
    for index, media_type in enumerate(offered):
        matching = [r for r in ranges if r.match(media_type)]
        if not matching:
            continue
        ranked = max(matching, key=lambda r: r.specificity)
        rank = (ranked.quality, ranked.specificity, -index)
        if ranked.quality > 0 and (best is None or rank > best[0]):
            best = (rank, media_type, ranked)
    return None if best is None else (best[1], best[2])


def preferred(request: HttpRequest, offered: Sequence[str]) -> str | None:
    match = best_match(request.headers.get("Accept"), offered)
    return None if match is None else match[0]


def is_browser_navigation(request: HttpRequest) -> bool:
    """Whether the request is a person's browser opening a page: its Accept names both HTML
    types (not through `*/*`)."""
    ranges = accepted_ranges(request.headers.get("Accept", ""))
    named = {f"{r.main_type}/{r.sub_type}" for r in ranges if r.quality > 0}
    return named >= _NAVIGATION_TYPES
