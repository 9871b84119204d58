from django.apps import AppConfig


class ArticlesConfig(AppConfig):
    name = "articles"
    verbose_name = "Articles and comments"
