from django.apps import AppConfig


class RestConfig(AppConfig):
    name = "rest"
    verbose_name = "REST toolkit"

    def ready(self) -> None:
        from core import surfaces
        from rest.middleware import REST

        surfaces.register(REST)
