"""Access tokens: stored only as hashes, compared in constant time, expiring and revocable."""

from __future__ import annotations

import hmac
from datetime import timedelta

import pytest
from django.utils import timezone

from blogs import services
from blogs.models import AccessToken, hash_token


def test_token_is_stored_only_as_its_hash(alice):
    token, plain = services.token_issue(user=alice, name="laptop")
    stored = AccessToken.objects.get(pk=token.pk)
    assert stored.token_hash == hash_token(plain)
    assert plain not in {stored.token_hash, stored.prefix, stored.name}
    assert stored.prefix == plain[:8]
    assert len(plain) >= 40


def test_matching_finds_the_token_and_its_user(alice):
    _, plain = services.token_issue(user=alice, name="laptop")
    found = AccessToken.objects.matching(plain)
    assert found is not None and found.user == alice


@pytest.mark.parametrize("guess", ["", "x", "wrong-token-of-a-plausible-length-0000000000"])
def test_matching_refuses_unknown_tokens(alice, guess):
    services.token_issue(user=alice, name="laptop")
    assert AccessToken.objects.matching(guess) is None


def test_a_token_with_the_right_prefix_but_wrong_rest_is_refused(alice):
    _, plain = services.token_issue(user=alice, name="laptop")
    assert AccessToken.objects.matching(plain[:8] + "A" * (len(plain) - 8)) is None


def test_comparison_is_constant_time(alice, monkeypatch):
    compared = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    _, plain = services.token_issue(user=alice, name="laptop")
    assert AccessToken.objects.matching(plain) is not None
    assert compared == [(hash_token(plain), hash_token(plain))]


def test_revoked_token_is_refused(alice):
    token, plain = services.token_issue(user=alice, name="laptop")
    services.token_revoke(token=token)
    assert AccessToken.objects.matching(plain) is None
    assert AccessToken.objects.get(pk=token.pk).revoked_at is not None


def test_expired_token_is_refused(alice):
    token, plain = services.token_issue(
        user=alice, name="short", expires_at=timezone.now() + timedelta(days=1)
    )
    AccessToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert AccessToken.objects.matching(plain) is None


def test_an_expiry_in_the_past_cannot_be_issued(alice):
    with pytest.raises(ValueError):
        services.token_issue(user=alice, name="x", expires_at=timezone.now())
    assert not AccessToken.objects.exists()


def test_last_use_is_recorded_at_most_once_a_minute(alice):
    token, _ = services.token_issue(user=alice, name="laptop")
    services.token_record_use(token=token)
    first = AccessToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    services.token_record_use(token=token)
    assert AccessToken.objects.get(pk=token.pk).last_used_at == first


def test_no_token_starts_with_a_dash_so_its_prefix_is_a_command_argument():
    from blogs.models import AccessToken

    assert not any(AccessToken.generate().startswith("-") for _ in range(2000))
