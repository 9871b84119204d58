"""A URL conf for one test: the real /graphql view over a schema whose resolver fails.

The Star Wars schema has no resolver that fails on purpose, so the "no exception text leaks"
guarantee of the view is exercised with this one.
"""

from __future__ import annotations

import graphene
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from graphapi.views import SiteGraphQLView

SECRET = "password=hunter2 at /srv/app/config/settings/base.py"


class Query(graphene.ObjectType):
    boom = graphene.String()
    fine = graphene.String()

    @staticmethod
    def resolve_boom(root: None, info: graphene.ResolveInfo) -> str:
        raise RuntimeError(SECRET)

    @staticmethod
    def resolve_fine(root: None, info: graphene.ResolveInfo) -> str:
        return "still here"


urlpatterns = [
    path("graphql", csrf_exempt(SiteGraphQLView.as_view(schema=graphene.Schema(query=Query))))
]
