"""Media types: what the API renders and parses, and the version as a media-type parameter."""

from __future__ import annotations

from typing import Any

from django.utils.http import parse_header_parameters
from drf_hal_json.parsers import JsonHalParser
from drf_hal_json.renderers import JsonHalRenderer
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.versioning import AcceptHeaderVersioning

API_VERSION = "1.2"


class HalJsonRenderer(JsonHalRenderer):
    """application/hal+json, the default (also for a missing Accept or */*)."""

    format = "hal"


class PlainJsonRenderer(JSONRenderer):
    """application/json: the same body under the plain JSON media type."""


class BrowsableHalRenderer(BrowsableAPIRenderer):
    """text/html for people: read-only pages (writes need the X-Access-Token header, which a
    browser form cannot send), and no CSRF token, so that the API never sets a cookie."""

    def show_form_for_method(self, view: Any, method: str, request: Any, obj: Any) -> bool:
        return False

    def get_raw_data_form(self, data: Any, view: Any, method: str, request: Any) -> None:
        return None

    def get_context(self, data: Any, accepted_media_type: str, renderer_context: Any) -> dict:
        context = super().get_context(data, accepted_media_type, renderer_context)
        context["display_edit_forms"] = False
        # Overrides the lazy token of the csrf context processor, which would set a cookie.
        context["csrf_token"] = ""
        return context


def _load_json(parser: JSONParser, stream: Any, media_type: Any, parser_context: Any) -> Any:
    try:
        return JSONParser.parse(parser, stream, media_type, parser_context)
    except RecursionError:
        # Deeply nested arrays or objects exhaust the parser's stack: a bad body, not a fault.
        raise ParseError("JSON parse error - nested too deeply") from None


class StrictJsonParser(JSONParser):
    """application/json bodies (NaN and Infinity are refused: STRICT_JSON)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        return _load_json(self, stream, media_type, parser_context)


class StrictHalJsonParser(JsonHalParser):
    """application/hal+json bodies, read the same way."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        return _load_json(self, stream, media_type, parser_context)


UTF8 = ("utf-8", "utf8")
BODY_DETAIL = "Send the body as application/json or application/hal+json, in UTF-8."


class StrictContentNegotiation(DefaultContentNegotiation):
    """Request bodies: a Content-Type names one media type (RFC 9110 8.3), never a range such as
    `*/*` or `application/*`, which DRF's matching would take for JSON; and the text is UTF-8
    (RFC 8259 8.1), whatever other codec a `charset` parameter names (utf-7 would turn
    `+ADw-script+AD4-` into `<script>`)."""

    def select_parser(self, request: Any, parsers: Any) -> Any:
        media_type, params = parse_header_parameters(request.content_type or "")
        if "*" in media_type:
            raise UnsupportedMediaType(media_type, detail=BODY_DETAIL)
        charset = params.get("charset")
        if charset is not None and charset.lower() not in UTF8:
            raise UnsupportedMediaType(media_type, detail=f"{BODY_DETAIL} Not {charset[:40]}.")
        return super().select_parser(request, parsers)


class MediaTypeVersioning(AcceptHeaderVersioning):
    """`Accept: application/hal+json; version=1.2`; no version parameter means the current one.

    An unknown version is 406. Links always use the canonical /api/v1.2/ prefix.
    """

    default_version = API_VERSION
    allowed_versions = (API_VERSION,)
    version_param = "version"
