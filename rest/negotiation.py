"""Media types: what the API renders and parses, and the version as a media-type parameter."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from django.utils.html import escape, format_html
from django.utils.http import parse_header_parameters
from django.utils.safestring import mark_safe
from drf_hal_json.parsers import JsonHalParser
from drf_hal_json.renderers import JsonHalRenderer
from rest_framework.exceptions import NotAcceptable, ParseError, UnsupportedMediaType
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.versioning import AcceptHeaderVersioning
from uritemplate import URITemplate

from core.negotiation import best_match
from core.problems import PROBLEM_MEDIA_TYPE

API_VERSION = "1.2"
HAL_FORMS_MEDIA_TYPE = "application/prs.hal-forms+json"


class HalJsonRenderer(JsonHalRenderer):
    """application/hal+json, the default (also for a missing Accept or */*)."""

    format = "hal"


class HalFormsRenderer(HalJsonRenderer):
    """application/prs.hal-forms+json (HAL-FORMS): the HAL body, and on an article page and an
    article the `_templates` of the writes they offer (articles.api.forms). Chosen when the
    client ranks it highest, as ketting's default Accept does (docs/decisions/hal-forms.md)."""

    media_type = HAL_FORMS_MEDIA_TYPE
    format = "hal-forms"


class BrowsableHalRenderer(BrowsableAPIRenderer):
    """text/html for people: DRF's browsable API, reading HAL (rest_framework/hal_api.html;
    docs/decisions/browsable-api.md). No CSRF token: the API never sets a cookie, and a write
    is authenticated by a header, never by anything the browser sends on its own."""

    template = "rest_framework/hal_api.html"

    def show_form_for_method(self, view: Any, method: str, request: Any, obj: Any) -> bool:
        # Every method the resource offers: DRF would ask the permission first, which refuses
        # a write to the token-less GET that shows the page (the token comes with the form).
        succeeded = self.renderer_context["response"].status_code < 400
        return succeeded and method in view.allowed_methods

    def get_raw_data_form(self, data: Any, view: Any, method: str, request: Any) -> Any:
        form = super().get_raw_data_form(data, view, method, request)
        if form is not None and method == "PUT" and isinstance(data, dict):
            # A replacement starts from the current state: its fields without links or the id,
            # and, when the view names its PUT body's serializer (`put_serializer`), only the
            # fields that body takes (not those the server derives, such as an HTML rendering).
            fields = {k: v for k, v in data.items() if not k.startswith("_") and k != "id"}
            if (put_serializer := getattr(view, "put_serializer", None)) is not None:
                accepted = put_serializer().fields
                fields = {k: v for k, v in fields.items() if k in accepted}
            form.initial["_content"] = json.dumps(fields, indent=4, ensure_ascii=False)
        return form

    def get_context(self, data: Any, accepted_media_type: str, renderer_context: Any) -> dict:
        context = super().get_context(data, accepted_media_type, renderer_context)
        response = renderer_context["response"]
        request = renderer_context["request"]
        # Overrides the lazy token of the csrf context processor, which would set a cookie.
        context["csrf_token"] = ""
        context["display_edit_forms"] = response.status_code < 400
        context["content"] = linked_json(context["content"])
        context["hal_links"] = hal_links(data)
        context["resource_url"] = request.build_absolute_uri()
        context["etag"] = response.get("ETag", "")
        if response.status_code >= 400 and isinstance(data, dict) and "title" in data:
            context["problem"] = data
            # What an API client gets for the same request.
            context["response_headers"]["Content-Type"] = PROBLEM_MEDIA_TYPE
        return context


@dataclass(frozen=True)
class HalLink:
    rel: str
    href: str
    title: str | None = None
    doc: str | None = None  # the documentation of a curie-prefixed relation
    variables: tuple[str, ...] = ()  # of a templated href
    action: str = ""  # a templated href expanded with every variable undefined

    @property
    def templated(self) -> bool:
        return bool(self.variables)


def hal_links(data: Any) -> list[HalLink]:
    """The link objects of `data["_links"]` (HAL section 4.1.1), the curies resolved."""
    links = data.get("_links") if isinstance(data, dict) else None
    if not isinstance(links, dict):
        return []
    curies = {
        curie["name"]: URITemplate(curie["href"])
        for curie in links.get("curies", [])
        if isinstance(curie, dict) and "name" in curie and "href" in curie
    }
    rows = []
    for rel, value in links.items():
        if rel == "curies":
            continue
        prefix, _, reference = rel.partition(":")
        # HAL section 8.2: a curie's href is a template whose {rel} is the relation's reference.
        doc = curies[prefix].expand(rel=reference) if reference and prefix in curies else None
        for target in value if isinstance(value, list) else [value]:
            if not isinstance(target, dict) or not isinstance(target.get("href"), str):
                continue
            row = HalLink(rel=rel, href=target["href"], title=target.get("title"), doc=doc)
            if target.get("templated"):
                template = URITemplate(row.href)
                variables = tuple(template.variable_names)
                row = replace(row, variables=variables, action=template.expand())
            rows.append(row)
    return rows


# A JSON string that is an absolute http(s) URL, as the default renderer writes hrefs.
_URL_STRING = re.compile(r'"(https?://[^"\\\s]+)"')


def linked_json(text: str) -> str:
    """The JSON text with its URLs as links, escaped for HTML.

    DRF's template would urlize a templated href raw (a 404 when clicked). When only query
    variables remain, it is linked to its expansion with every variable undefined (RFC 6570
    section 3.2.1: they are left out), which opens the collection with its defaults; any other
    template (a path variable) stays text.
    """
    parts = []
    last = 0
    for match in _URL_STRING.finditer(text):
        parts.append(escape(text[last : match.start(1)]))
        url = match.group(1)
        target = url if "{" not in url else _query_only_expansion(url)
        if target is None:
            parts.append(escape(url))
        else:
            parts.append(format_html('<a href="{}" rel="nofollow">{}</a>', target, url))
        last = match.end(1)
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 (every part is escaped above)


def _query_only_expansion(url: str) -> str | None:
    template = URITemplate(url)
    query_only = all(variable.operator.value in ("?", "&") for variable in template.variables)
    return template.expand() if query_only else None


class StrictJsonParser(JSONParser):
    """application/json bodies (NaN and Infinity are refused: STRICT_JSON)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return JSONParser.parse(self, stream, media_type, parser_context)
        except RecursionError:
            # Deeply nested arrays or objects exhaust the parser's stack: a bad body, not a fault.
            raise ParseError("JSON parse error - nested too deeply") from None


class StrictHalJsonParser(JsonHalParser):
    """application/hal+json bodies, read the same way (JSONParser's parse, not the HAL one)."""

    parse = StrictJsonParser.parse


UTF8 = ("utf-8", "utf8")
BODY_DETAIL = "Send the body as application/json or application/hal+json, in UTF-8."


class StrictContentNegotiation(DefaultContentNegotiation):
    """Answers: the renderer of the type the Accept header ranks highest (core.negotiation).

    Request bodies: a Content-Type names one media type (RFC 9110 8.3), never a range such as
    `*/*` or `application/*`, which DRF's matching would take for JSON; and the text is UTF-8
    (RFC 8259 8.1), whatever other codec a `charset` parameter names (utf-7 would turn
    `+ADw-script+AD4-` into `<script>`)."""

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        by_type = {renderer.media_type: renderer for renderer in renderers}
        match = best_match(request.headers.get("Accept"), list(by_type))
        if match is None:
            raise NotAcceptable(available_renderers=renderers)
        media_type, accepted = match
        # The range's parameters go with the type: `version` (MediaTypeVersioning), `indent`.
        params = (f"{name}={value}" for name, value in accepted.range_params.items())
        return by_type[media_type], "; ".join((media_type, *params))

    def select_parser(self, request: Any, parsers: Any) -> Any:
        media_type, params = parse_header_parameters(request.content_type or "")
        if "*" in media_type:
            raise UnsupportedMediaType(media_type, detail=BODY_DETAIL)
        charset = params.get("charset")
        if charset is not None and charset.lower() not in UTF8:
            raise UnsupportedMediaType(media_type, detail=f"{BODY_DETAIL} Not {charset[:40]}.")
        return super().select_parser(request, parsers)


class MediaTypeVersioning(AcceptHeaderVersioning):
    """`Accept: application/hal+json; version=1.2`; no version parameter means the current one,
    an unknown one is 406."""

    default_version = API_VERSION
    allowed_versions = (API_VERSION,)
    version_param = "version"
