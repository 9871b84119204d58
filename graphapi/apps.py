from django.apps import AppConfig


class GraphapiConfig(AppConfig):
    name = "graphapi"
    verbose_name = "Star Wars data (GraphQL)"
