"""What the token check remembers between requests, in the shared store under the token's hash
(docs/decisions/token-cache.md).

Any change to a token or its user sets a tombstone on the token's key, and entries are only ever
*added* where the key is free: a check that read the database before a revocation committed
cannot put the old state back, so the next request on any worker sees the revocation.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction

from blogs.models import AccessToken

logger = logging.getLogger(__name__)

_KEY = "token:v1:{}"
# What a tombstone holds; it outlives any entry that a check read before it could add.
_FORGOTTEN = "forgotten"
# The fields of a user a token check hands on (request.user): what the permission checks read.
_USER_FIELDS = ("pk", "username", "is_active", "is_staff", "is_superuser")


def remembered(token_hash: str) -> AccessToken | None:
    """The token remembered under `token_hash`, with its user; None when it is not remembered
    (or was forgotten: the database decides)."""
    try:
        entry = cache.get(_KEY.format(token_hash))
    except Exception:  # the store is unreachable: the database decides
        logger.warning("shared store unreachable; the token is looked up", exc_info=True)
        return None
    if not isinstance(entry, dict):
        return None
    user = get_user_model()(**{name: entry["user"][name] for name in _USER_FIELDS})
    return AccessToken(
        pk=entry["pk"],
        user=user,
        name=entry["name"],
        prefix=entry["prefix"],
        token_hash=token_hash,
        expires_at=entry["expires_at"],
    )


def remember(token: AccessToken) -> None:
    """Keep the active token (of an active user) for the next checks, unless a tombstone says
    it changed meanwhile."""
    if settings.TOKEN_CACHE_SECONDS <= 0:
        return
    entry = {
        "pk": token.pk,
        "name": token.name,
        "prefix": token.prefix,
        "expires_at": token.expires_at,
        "user": {name: getattr(token.user, name) for name in _USER_FIELDS},
    }
    try:
        cache.add(_KEY.format(token.token_hash), entry, settings.TOKEN_CACHE_SECONDS)
    except Exception:  # the next check looks it up again
        logger.warning("shared store unreachable; the token is not remembered", exc_info=True)


def forget(token_hashes: list[str]) -> None:
    """Tombstones for these tokens: now, so that no check adds the state the transaction is
    changing while it runs, and again when it commits (a rollback leaves them standing: the
    tokens are then looked up for a while, nothing worse)."""
    if not token_hashes or settings.TOKEN_CACHE_SECONDS <= 0:
        return
    tombstones = {_KEY.format(token_hash): _FORGOTTEN for token_hash in token_hashes}

    def bury() -> None:
        # Twice an entry's life: longer than a check that read the old state takes to add it.
        try:
            cache.set_many(tombstones, 2 * settings.TOKEN_CACHE_SECONDS)
        except Exception:  # entries then end by TOKEN_CACHE_SECONDS
            logger.error("shared store unreachable; tokens not forgotten", exc_info=True)

    bury()
    transaction.on_commit(bury)


def token_changed(sender: type, instance: AccessToken, **kwargs: Any) -> None:
    """post_save and post_delete of a token (a new one has nothing to forget)."""
    if not kwargs.get("created"):
        forget([instance.token_hash])


def user_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    """post_save and post_delete of a user: every token of theirs is forgotten (a deactivated
    user's tokens stop at once; a new username or rights show at the next request)."""
    if not kwargs.get("created"):
        tokens = AccessToken.objects.filter(user_id=instance.pk)
        forget(list(tokens.values_list("token_hash", flat=True)))
