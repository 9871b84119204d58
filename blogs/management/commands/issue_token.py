from __future__ import annotations

import argparse
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from blogs.management.base import OperatorCommand
from blogs.models import AccessToken
from blogs.services import token_issue, token_revoke


def positive_days(value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of days: {value!r}") from None
    if not 1 <= days <= 3650:
        raise argparse.ArgumentTypeError("must be between 1 and 3650 days")
    return days


class Command(OperatorCommand):
    help = "Issue an API access token for a user; the token is printed once, on the last line."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--expires-in", type=positive_days, metavar="DAYS", default=None)
        parser.add_argument("--name", default="cli", help="what the token is for (max 100)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="first revoke the user's active tokens of that name (make run: one 'demo' token)",
        )

    def handle(
        self,
        *args,
        username: str,
        expires_in: int | None,
        name: str,
        replace: bool,
        **options,
    ) -> None:
        name = name.strip()
        if not name or len(name) > 100:
            raise CommandError("--name must be 1 to 100 characters")
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"no active user named {username!r}")
        expires_at = timezone.now() + timedelta(days=expires_in) if expires_in else None
        previous = AccessToken.objects.filter(user=user, name=name, revoked=False)
        with transaction.atomic():
            replaced = [token_revoke(token=old) for old in previous] if replace else []
            token, plain = token_issue(user=user, name=name, expires_at=expires_at)
        for old in replaced:
            self.stdout.write(f"Revoked the previous token {old.prefix}… ({name!r}).")
        expiry = f"expires {token.expires_at:%Y-%m-%d %H:%M} UTC" if expires_at else "no expiry"
        self.stdout.write(f"Token {token.prefix}… ({name!r}, {expiry}) for {username}:")
        self.stdout.write(plain)
