from django.apps import AppConfig


class ArticlesConfig(AppConfig):
    name = "articles"
    verbose_name = "Articles and comments"

    def ready(self) -> None:
        from articles.api import rels
        from rest.docs import document

        document(rels.RELATIONS)
