from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView

from core.health import healthz, livez, readyz
from core.metrics.views import metrics
from core.pages import front_door, to_slash_form
from core.problems import problem_doc
from graphapi.views import SiteGraphQLView
from rest.docs import SwaggerUIView, rel_doc, rel_index
from soapcalc.views import calculator

# The REST surface: every app's resources under one namespace ("api"), so that links name a route
# whichever app serves it.
api_routes = (
    [
        path("", include("articles.api.urls")),
        path("", include("webhooks.api.urls")),
        path("", include("drafts.api.urls")),
    ],
    "api",
)

urlpatterns = [
    # The front door; the admin's "View site" link (AdminSite.site_url, "/" by default) too.
    path("", front_door, name="front-door"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    # REST (HAL): the canonical versioned prefix, then the unversioned one whose version is the
    # Accept header's `version` parameter. The schema and its viewer come first.
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SwaggerUIView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/v1.2/", include(api_routes, namespace="api-v1.2")),
    path("api/", include(api_routes, namespace="api-media-type")),
    path("docs/rels/", rel_index, name="rel-index"),
    path("docs/rels/<slug:rel>", rel_doc, name="rel-doc"),
    path("docs/problems/<slug:slug>", problem_doc, name="problem-doc"),
    # GraphQL: no cookie or session is read, so there is nothing for a cross-site request to
    # ride on.
    path("graphql", csrf_exempt(SiteGraphQLView.as_view()), name="graphql"),
    path("soap/calculator", calculator, name="soap-calculator"),
]

# The pages people type without their trailing slash. APPEND_SLASH stays off: the API's own
# paths have no slash form, and a redirect is wanted for these few only (docs/site.md).
urlpatterns += [
    path(prefix, csrf_exempt(to_slash_form))
    for prefix in ("admin", "api/schema", "api/docs", "api/v1.2", "docs/rels")
]

handler404 = "core.problems.not_found"
handler500 = "core.problems.server_error"
