from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save


class BlogsConfig(AppConfig):
    name = "blogs"
    verbose_name = "Blogs and access tokens"

    def ready(self) -> None:
        from blogs import tokens
        from blogs.models import AccessToken

        # A token remembered by the token check is forgotten by any change to it or its user.
        for name, signal in (("post_save", post_save), ("post_delete", post_delete)):
            signal.connect(
                tokens.token_changed, sender=AccessToken, dispatch_uid=f"blogs.tokens.{name}"
            )
            signal.connect(
                tokens.user_changed, sender=get_user_model(), dispatch_uid=f"blogs.users.{name}"
            )
