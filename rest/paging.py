"""The page shape of the contract, shared by blogs, articles and comments.

`_link` (singular) and `_embedded` as an array are what the specification's clients read;
`_links` carries the same relations plus curies for generic HAL clients, and `item` (RFC 6573,
IANA registered, so not curied): a link to each member of the page, with its title. A generic
client finds the members by relation name there; the `_embedded` array, keyed by no relation,
is invisible to it (docs/rest.md, "Generic HAL clients and pages").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import HttpRequest
from rest_framework import serializers

from core.paging import Page
from rest.exceptions import InvalidQueryParameter
from rest.links import HalSerializer, Link, LinksField, curies, get_request, link, page_href

_POSITIVE_INTEGER = re.compile(r"[0-9]+")
# Digits beyond this are refused as a bad value rather than parsed (int() of a huge string costs).
_MAX_DIGITS = 18
_Title = Callable[[dict[str, Any]], str | None]


def _positive_int(request: HttpRequest, name: str, default: int) -> int:
    raw = request.GET.get(name)
    if raw is None:
        return default
    if not _POSITIVE_INTEGER.fullmatch(raw) or len(raw) > _MAX_DIGITS or int(raw) < 1:
        raise InvalidQueryParameter(name, f"{name} must be a positive integer.")
    return int(raw)


def page_params(request: HttpRequest) -> tuple[int, int]:
    """(pageIndex, pageSize) from the query string, or a 400 naming the bad parameter."""
    page_index = _positive_int(request, "pageIndex", 1)
    page_size = _positive_int(request, "pageSize", settings.PAGE_SIZE_DEFAULT)
    if page_size > settings.PAGE_SIZE_MAX:
        raise InvalidQueryParameter(
            "pageSize", f"pageSize must be at most {settings.PAGE_SIZE_MAX}."
        )
    return page_index, page_size


def utf8_param(request: HttpRequest, name: str) -> str | None:
    """The parameter `name`, or a 400 naming it when its bytes are not UTF-8. Django decodes the
    query string with replacement, so `q=%ff%fe` would arrive as two U+FFFD and be searched
    for; a U+FFFD the client did send (`%EF%BF%BD`) is text like any other."""
    value = request.GET.get(name)
    if value is None or "\ufffd" not in value:
        return value
    # PEP 3333: QUERY_STRING holds the request's bytes, one character each (ISO-8859-1).
    raw = request.META.get("QUERY_STRING", "").encode("iso-8859-1", errors="replace")
    for pair in raw.split(b"&"):
        key, _, encoded = pair.partition(b"=")
        if unquote_to_bytes(key.replace(b"+", b" ")).decode("utf-8", errors="replace") != name:
            continue
        try:
            unquote_to_bytes(encoded.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidQueryParameter(name, f"{name} must be UTF-8 text.") from None
    return value


def page_links(
    collection_url: str, page: Page[Any], search: dict[str, str] | None = None
) -> dict[str, Any]:
    def to(index: int) -> dict[str, Any]:
        return link(
            page_href(collection_url, page_index=index, page_size=page.page_size, search=search)
        )

    last = max(page.total_pages, 1)
    links: dict[str, Any] = {"firstPage": to(1)}
    if page.page_index > 1:
        # Past the end, the previous page is the last one that has items.
        links["previousPage"] = to(min(page.page_index - 1, last))
    links["self"] = to(page.page_index)
    if page.page_index < page.total_pages:
        links["nextPage"] = to(page.page_index + 1)
    links["lastPage"] = to(last)
    return links


def member_title(member: dict[str, Any]) -> str | None:
    """The title of a member's `item` link: its `title` field (blogs and articles)."""
    return member.get("title")


def item_links(embedded: Sequence[dict[str, Any]], title: _Title) -> list[Link]:
    """The `item` relation (RFC 6573): each embedded member's self link, titled, in page order.

    Always an array, even of one or none, so that a client need not test for both forms (HAL
    section 4.1.1 lets a relation be either)."""
    return [link(member["_links"]["self"]["href"], title=title(member)) for member in embedded]


class PageLinksField(LinksField):
    """A page's relations (page_links): `_link` bare, `_links` with curies and `item` (which the
    page adds from its members: PageSerializer.to_representation)."""

    def __init__(self, *, for_hal: bool, **kwargs: Any) -> None:
        relations = ("firstPage", "previousPage", "self", "nextPage", "lastPage")
        super().__init__(
            dict.fromkeys(relations),
            optional=("previousPage", "nextPage"),
            label="_links" if for_hal else "_link",
            **kwargs,
        )
        self.with_curies = for_hal
        if for_hal:
            self.item_description = (
                "The page's members, in page order: each one's `self` link with a title"
                " (RFC 6573 `item`; an array even of one or none)."
            )

    def to_representation(self, value: Page[Any]) -> dict[str, Any]:
        relations = page_links(self.context["collection_url"], value, self.context.get("search"))
        if not self.with_curies:
            return relations
        return {"curies": curies(get_request(self)), **relations}


class PageSerializer(HalSerializer):
    """A Page of members; made by page_serializer. Context: the request, the `collection_url`,
    and the page of articles' `search`."""

    item_title: _Title

    def to_representation(self, instance: Page[Any]) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["_links"]["item"] = item_links(data["_embedded"], type(self).item_title)
        return data


def page_serializer(
    name: str,
    item: type[serializers.Serializer],
    total_name: str,
    item_title: _Title = member_title,
) -> type[PageSerializer]:
    """The serializer of a page of `item`s (the schema's component `name`), its total named
    `total_name`; `item_title` titles each member's `item` link."""
    fields = {
        "pageIndex": serializers.IntegerField(source="page_index", min_value=1),
        "pageSize": serializers.IntegerField(
            source="page_size", min_value=1, max_value=settings.PAGE_SIZE_MAX
        ),
        "totalPages": serializers.IntegerField(source="total_pages", min_value=0),
        total_name: serializers.IntegerField(source="total", min_value=0),
        "_link": PageLinksField(
            for_hal=False,
            help_text="The page relations, as the specification's clients read them.",
        ),
        "_links": PageLinksField(
            for_hal=True, help_text="The same relations and `item`, for HAL clients."
        ),
        "_embedded": item(many=True, source="items", required=False, label="_embedded"),
    }
    return type(
        f"{name}Serializer",
        (PageSerializer,),
        {"item_title": staticmethod(item_title), "__module__": item.__module__, **fields},
    )


def page_body(
    request: HttpRequest,
    serializer: type[PageSerializer],
    page: Page[Any],
    *,
    collection_url: str,
    **context: Any,
) -> dict[str, Any]:
    """The page's representation; `context` is for the serializer's own fields (and `search`)."""
    context.update(request=request, collection_url=collection_url)
    return serializer(page, context=context).data
