from django.contrib import admin
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.health import healthz
from graphapi.views import StarWarsGraphQLView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # No cookie or session is read, so there is nothing for a cross-site request to ride on.
    path("graphql", csrf_exempt(StarWarsGraphQLView.as_view()), name="graphql"),
]
