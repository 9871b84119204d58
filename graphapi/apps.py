from django.apps import AppConfig


class GraphapiConfig(AppConfig):
    name = "graphapi"
    verbose_name = "Star Wars data (GraphQL)"

    def ready(self) -> None:
        from core import surfaces
        from graphapi.errors import request_error

        surfaces.register(surfaces.Surface("graphql", "/graphql", error=request_error))
