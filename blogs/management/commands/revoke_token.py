from __future__ import annotations

from django.core.management.base import CommandError
from django.db.models import Q

from blogs.management.base import OperatorCommand
from blogs.models import AccessToken
from blogs.services import token_revoke


class Command(OperatorCommand):
    help = "Revoke an API access token, named by its prefix (first 8 characters) or its name."

    def add_arguments(self, parser) -> None:
        parser.add_argument("prefix_or_name")

    def handle(self, *args, prefix_or_name: str, **options) -> None:
        matches = list(
            AccessToken.objects.filter(revoked=False)
            .filter(Q(prefix=prefix_or_name) | Q(name=prefix_or_name))
            .select_related("user")
        )
        if not matches:
            raise CommandError(f"no active token has the prefix or name {prefix_or_name!r}")
        if len(matches) > 1:
            prefixes = ", ".join(token.prefix for token in matches)
            raise CommandError(
                f"{len(matches)} active tokens match {prefix_or_name!r} ({prefixes}); "
                "give the prefix of the one to revoke"
            )
        token = token_revoke(token=matches[0])
        self.stdout.write(f"Revoked token {token.prefix}… ({token.name!r}) of {token.user}.")
