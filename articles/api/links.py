"""Link objects (HAL section 5) and the serializer fields that build them.

A link is always an object, `{"href": ...}`, with `"templated": true` when the href is an RFC 6570
template and a `"title"` where the contract names one. An absent link is left out, never null.
Hrefs are absolute and always use the canonical `/api/v1.2/` prefix, whatever prefix the request
came in on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from rest_framework import serializers
from uritemplate import URITemplate

CANONICAL_NAMESPACE = "api-v1.2"
PAGE_TEMPLATE = "{?pageIndex,pageSize}"

Link = dict[str, Any]


def api_url(request: HttpRequest, name: str, **kwargs: int) -> str:
    return request.build_absolute_uri(reverse(f"{CANONICAL_NAMESPACE}:{name}", kwargs=kwargs))


def link(href: str, *, title: str | None = None) -> Link:
    result: Link = {"href": href}
    if title is not None:
        result["title"] = title
    return result


def templated_link(template: str) -> Link:
    # Parsing the template makes a typo in a variable list fail here, not in a client.
    URITemplate(template)
    return {"href": template, "templated": True}


def page_template(collection_url: str) -> str:
    return collection_url + PAGE_TEMPLATE


def page_href(collection_url: str, *, page_index: int, page_size: int) -> str:
    """A page's href: the collection's templated link, expanded (so both always agree)."""
    return URITemplate(page_template(collection_url)).expand(
        pageIndex=page_index, pageSize=page_size
    )


def curies(request: HttpRequest) -> list[Link]:
    docs = request.build_absolute_uri(reverse("rel-doc", kwargs={"rel": "REL"}))
    return [{"name": "doc", **templated_link(docs.replace("REL", "{rel}"))}]


def get_request(field: serializers.Field) -> HttpRequest:
    request = field.context.get("request")
    if request is None:
        raise RuntimeError("link fields need the request in the serializer context")
    return request


class LinksField(serializers.Field):
    """The `_links` object of a resource: curies first, then one entry per relation.

    `relations` maps a relation name to a function (request, instance) -> link object or None;
    None leaves the relation out.
    """

    def __init__(
        self, relations: dict[str, Callable[[HttpRequest, Any], Link | None]], **kwargs: Any
    ) -> None:
        self.relations = relations
        kwargs.update(source="*", read_only=True)
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> dict[str, Any]:
        request = get_request(self)
        links: dict[str, Any] = {"curies": curies(request)}
        for rel, build in self.relations.items():
            built = build(request, value)
            if built is not None:
                links[rel] = built
        return links
