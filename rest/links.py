"""Link objects (HAL section 5) and the serializer fields that build them.

A link is always an object, never a bare string; an absent link is left out, never null. Hrefs
are absolute and use the canonical `/api/v1.2/` prefix, whatever prefix the request came in on.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.http import HttpRequest
from django.urls import get_script_prefix, reverse
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers
from uritemplate import URITemplate

CANONICAL_NAMESPACE = "api-v1.2"
PAGE_TEMPLATE = "{?pageIndex,pageSize}"
# Pages of articles also take a search, an order (articles.search) and a tag (articles.tags):
# their links declare all three.
ARTICLES_TEMPLATE = "{?pageIndex,pageSize,q,sort,tag}"

Link = dict[str, Any]

# Parsed once: a typo in the variable list fails at import, not in a client.
_PAGE_QUERY = URITemplate(PAGE_TEMPLATE)
_ARTICLES_QUERY = URITemplate(ARTICLES_TEMPLATE)
# Stand-ins for the integer arguments of a route, far beyond any real id, so that the reversed
# path shows exactly where each argument goes.
_MARKER_BASE = 7_000_000_000_000_000_001


@lru_cache(maxsize=256)
def _path_format(view_name: str, arguments: tuple[str, ...], script_prefix: str) -> str:
    """The reversed path of a route with a `{name}` field for each argument: reverse() walks
    the URL resolver on every call (about 30 µs), and a page of 100 articles needs 400 links."""
    markers = {name: _MARKER_BASE + index for index, name in enumerate(arguments)}
    path = reverse(view_name, kwargs=markers).replace("{", "{{").replace("}", "}}")
    for name, marker in markers.items():
        path = path.replace(str(marker), "{" + name + "}")
    return path


def path_for(view_name: str, **kwargs: int) -> str:
    """reverse() for routes whose arguments are integers."""
    fmt = _path_format(view_name, tuple(sorted(kwargs)), get_script_prefix())
    return fmt.format(**{name: int(value) for name, value in kwargs.items()})


def origin(request: HttpRequest) -> str:
    """`scheme://host` of the request (as build_absolute_uri makes it), computed once."""
    if not hasattr(request, "_hal_origin"):
        request._hal_origin = request.build_absolute_uri("/")[:-1]
    return request._hal_origin


def api_url(request: HttpRequest, name: str, **kwargs: int) -> str:
    # The paths are ASCII, so origin + path is what build_absolute_uri would return.
    return origin(request) + path_for(f"{CANONICAL_NAMESPACE}:{name}", **kwargs)


def link(href: str, *, title: str | None = None) -> Link:
    result: Link = {"href": href}
    if title is not None:
        result["title"] = title
    return result


def templated_link(template: str) -> Link:
    return {"href": template, "templated": True}


def page_template(collection_url: str) -> str:
    return collection_url + PAGE_TEMPLATE


def articles_template(collection_url: str) -> str:
    return collection_url + ARTICLES_TEMPLATE


def page_href(
    collection_url: str,
    *,
    page_index: int,
    page_size: int,
    search: dict[str, str] | None = None,
) -> str:
    """A page's href: the collection's templated link, expanded (so both always agree). `search`
    holds the `q`, `sort` and `tag` of a page of articles: every page link keeps them."""
    query = _ARTICLES_QUERY if search else _PAGE_QUERY
    return collection_url + query.expand(pageIndex=page_index, pageSize=page_size, **(search or {}))


@lru_cache(maxsize=16)
def _rel_doc_path(script_prefix: str) -> str:
    return reverse("rel-doc", kwargs={"rel": "REL"})


def curies(request: HttpRequest) -> list[Link]:
    # Built once per request: every embedded resource repeats the same curies.
    if not hasattr(request, "_hal_curies"):
        docs = request.build_absolute_uri(_rel_doc_path(get_script_prefix()))
        # Replaced after build_absolute_uri, which would percent-encode the braces.
        request._hal_curies = [{"name": "doc", **templated_link(docs.replace("REL", "{rel}"))}]
    return [dict(entry) for entry in request._hal_curies]


def get_request(field: serializers.Field) -> HttpRequest:
    request = field.context.get("request")
    if request is None:
        raise RuntimeError("link fields need the request in the serializer context")
    return request


@extend_schema_serializer(description="A HAL link object; never a bare string, never null.")
class LinkSerializer(serializers.Serializer):
    # An absolute URI, or an RFC 6570 template when `templated` is true, which is not a URI
    # ("{?pageIndex,pageSize}"): no `format: uri` here.
    href = serializers.CharField(help_text="absolute URI, or URI template")
    templated = serializers.ChoiceField(choices=[True], required=False)
    title = serializers.CharField(required=False)
    type = serializers.CharField(required=False, help_text="The media type of the target.")


class CurieSerializer(serializers.Serializer):
    """The shape curies() makes."""

    name = serializers.ChoiceField(choices=["doc"])
    href = serializers.CharField()
    templated = serializers.ChoiceField(choices=[True])


class HalSerializer(serializers.Serializer):
    """A representation of the contract: a field whose value is None is left out, not null,
    unless it allows null (`allow_null=True` says the contract shows null there)."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        data = super().to_representation(instance)
        return {k: v for k, v in data.items() if v is not None or self.fields[k].allow_null}


class LinksField(serializers.Field):
    """The `_links` object of a resource: curies first, then one entry per relation.

    `relations` maps a relation name to a function (request, instance) -> link object or None;
    None leaves the relation out, which only those named `optional` may do (the schema says so:
    rest.openapi.LinksFieldSchema).
    """

    with_curies = True
    item_description = ""

    def __init__(
        self,
        relations: dict[str, Callable[[HttpRequest, Any], Link | None]],
        *,
        optional: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
        self.relations = relations
        self.optional = optional
        # Not read_only: a representation's serializer is output only, and `required` says that
        # the schema promises the field. The label is the name, which the schema then omits.
        kwargs.setdefault("label", "_links")
        kwargs.update(source="*")
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> dict[str, Any]:
        request = get_request(self)
        links: dict[str, Any] = {"curies": curies(request)}
        for rel, build in self.relations.items():
            if (built := build(request, value)) is not None:
                links[rel] = built
        return links
