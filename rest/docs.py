"""The API's documentation pages: `/docs/rels/{rel}` (the HTML pages that the `doc` curie points
to, one per relation), their index `/docs/rels/`, and `/api/docs/` (Swagger UI)."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request

from core.edge import share
from core.problems import PROBLEM_TYPES


class SwaggerUIView(SpectacularSwaggerView):
    """drf-spectacular's Swagger UI page (its template is templates/drf_spectacular/)."""

    def options(self, request: Request, *args: object, **kwargs: object) -> HttpResponse:
        # DRF's metadata answer would be rendered by the page's HTML template renderer, which has
        # no template for it; the methods are all there is to say (DRF adds Allow).
        return HttpResponse(status=200)


@dataclass(frozen=True)
class Operation:
    method: str
    meaning: str
    request: str = ""
    response: str = ""


@dataclass(frozen=True)
class Relation:
    title: str
    meaning: str
    operations: tuple[Operation, ...]


PAGE = (
    '{"pageIndex": 1, "pageSize": 10, "totalPages": 3, "{total}": 25, '
    '"_link": {"firstPage", "previousPage"?, "self", "nextPage"?, "lastPage"}, '
    '"_links": {"curies", the same five, "item": [{"href", "title"}, ...] (one link per member, '
    'in page order)}, "_embedded": [ ... ]}'
)
NEEDS_TOKEN = "Needs X-Access-Token."  # noqa: S105 (a sentence, not a secret)
AUTHORS_ONLY = "Needs X-Access-Token of an author of the blog (401 without, 403 for others)."
# Every relation's page, added by the app that serves it (`document`, from its AppConfig.ready()).
RELATIONS: dict[str, Relation] = {}


def document(relations: dict[str, Relation]) -> None:
    RELATIONS.update(relations)


@require_safe
def rel_doc(request: HttpRequest, rel: str) -> HttpResponse:
    relation = RELATIONS.get(rel)
    if relation is None:
        raise Http404("no such relation")
    # The same for everyone, changed only by a deployment: shared under `site` (core.edge).
    return share(render(request, "docs/rel.html", {"rel": rel, "relation": relation}), [])


@require_safe
def rel_index(request: HttpRequest) -> HttpResponse:
    problems = sorted(PROBLEM_TYPES.items(), key=lambda item: item[1].status)
    page = render(request, "docs/rels.html", {"relations": RELATIONS.items(), "problems": problems})
    return share(page, [])
