"""Writes to blogs and access tokens, shared by the admin and the management commands."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from blogs import tokens
from blogs.models import TOKEN_PREFIX_LENGTH, AccessToken, Blog, hash_token


@transaction.atomic
def blog_set_archived(*, blog: Blog, archived: bool) -> Blog:
    blog = Blog.objects.select_for_update().get(pk=blog.pk)
    if blog.archived != archived:
        blog.archived = archived
        blog.save(update_fields=["archived"])
    return blog


def blog_archive(*, blog: Blog) -> Blog:
    return blog_set_archived(blog=blog, archived=True)


def blog_unarchive(*, blog: Blog) -> Blog:
    return blog_set_archived(blog=blog, archived=False)


@transaction.atomic
def token_issue(*, user, name: str, expires_at: datetime | None = None) -> tuple[AccessToken, str]:
    """Create a token for `user`; the plain token is returned once and never stored."""
    if expires_at is not None and expires_at <= timezone.now():
        raise ValueError("the expiry must lie in the future")
    plain = AccessToken.generate()
    token = AccessToken.objects.create(
        user=user,
        name=name,
        prefix=plain[:TOKEN_PREFIX_LENGTH],
        token_hash=hash_token(plain),
        expires_at=expires_at,
    )
    return token, plain


@transaction.atomic
def token_revoke(*, token: AccessToken) -> AccessToken:
    token = AccessToken.objects.select_for_update().get(pk=token.pk)
    if not token.revoked:
        token.revoked = True
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked", "revoked_at"])
    return token


def token_authenticate(*, plain: str, username: str | None = None) -> AccessToken | None:
    """The one token check of every surface (REST's X-Access-Token, SOAP's UsernameToken): the
    active token whose secret is `plain`, of an active user (the one named `username` when
    given), with its use recorded; None for anything else."""
    now = timezone.now()
    token = _token_of(plain)
    if token is None or not token.user.is_active:
        return None
    expired = token.expires_at is not None and token.expires_at <= now
    if expired or (username is not None and token.user.get_username() != username):
        return None
    token_record_use(token=token, now=now)
    return token


def _token_of(plain: str) -> AccessToken | None:
    """The active token whose secret is `plain`: as remembered (blogs.tokens), else from the
    database, then remembered."""
    if not plain or len(plain) > 200:
        return None
    if (known := tokens.remembered(hash_token(plain))) is not None:
        return known
    token = AccessToken.objects.matching(plain)
    if token is not None and token.user.is_active:
        tokens.remember(token)
    return token


# When this process last recorded each token's use (token hash -> time).
_recorded_uses: dict[str, datetime] = {}


def token_record_use(*, token: AccessToken, now: datetime | None = None) -> None:
    """Note when a token was last used, to the minute: each process writes it at most once a
    minute per token, so that a burst of writes costs one UPDATE, not one each."""
    now = now or timezone.now()
    last = _recorded_uses.get(token.token_hash) or token.last_used_at
    if last is not None and now - last < timedelta(minutes=1):
        return
    if len(_recorded_uses) > 10_000:  # bounded: a process forgets what it noted, then notes anew
        _recorded_uses.clear()
    _recorded_uses[token.token_hash] = now
    AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
    token.last_used_at = now
