"""Safe to point at the internet: with WEBHOOK_ALLOW_PRIVATE_TARGETS off (production), a target
resolving to a loopback, private, link-local, multicast, reserved or metadata address is refused,
checked on the very address connected to; the refusal is recorded as a failed attempt."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from articles import services as article_services
from webhooks import sender, services
from webhooks.models import Delivery
from webhooks.tasks import deliver


@pytest.fixture
def production_targets(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_target_resolving_to_loopback_is_refused_and_recorded(
    blog, receiver, production_targets, host
):
    services.subscription_create(
        blog=blog, url=f"http://{host}:{receiver.port}/hooks/in", events=["*"]
    )
    article_services.article_create(blog=blog, title="Inside job")
    (delivery,) = Delivery.objects.all()

    deliver(delivery.pk)

    assert receiver.received == []  # never connected
    delivery.refresh_from_db()
    assert delivery.status == "failed"  # not retried: it would be refused again
    (attempt,) = delivery.attempts.all()
    assert attempt.status_code is None and not attempt.succeeded
    assert attempt.error.startswith(f"Refused target: {host} resolves to 127.0.0.1")
    assert "loopback" in attempt.error


def test_the_same_target_is_delivered_when_private_targets_are_allowed(blog, receiver, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    services.subscription_create(blog=blog, url=receiver.url, events=["*"])
    article_services.article_create(blog=blog, title="Development")

    deliver(Delivery.objects.get().pk)

    assert len(receiver.received) == 1


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.9", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.10.10", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),  # noqa: S104 (an address under test, not one bound)
        ("::ffff:127.0.0.1", "loopback"),
        ("100.64.0.1", "not a public address"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
    ],
)
def test_non_public_addresses_are_refused(production_targets, address, reason):
    refusal = sender.address_refusal(ipaddress.ip_address(address))
    assert refusal is not None and reason in refusal


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"])
def test_public_addresses_are_allowed(production_targets, address):
    assert sender.address_refusal(ipaddress.ip_address(address)) is None


def test_cloud_metadata_is_refused_even_where_private_targets_are_allowed(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    assert sender.address_refusal(ipaddress.ip_address("169.254.169.254")) is not None
    assert sender.address_refusal(ipaddress.ip_address("127.0.0.1")) is None


def test_only_http_and_https_are_sent_to():
    outcome = sender.post("file:///etc/passwd", body=b"{}", headers={})
    assert outcome.refused and not outcome.retryable
    assert "not http(s)" in outcome.error


def test_the_name_is_resolved_once_and_that_address_connected_to(receiver, monkeypatch):
    """DNS rebinding: the name resolves to the checked address once; if the sender resolved it
    again when connecting it would reach the second answer (where nothing listens)."""
    real_getaddrinfo = socket.getaddrinfo
    answers = iter(["127.0.0.1", "127.0.0.2"])

    def rebinding(host, port, *args, **kwargs):
        if host != "rebinding.test":
            return real_getaddrinfo(host, port, *args, **kwargs)
        return real_getaddrinfo(next(answers), port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)

    outcome = sender.post(f"http://rebinding.test:{receiver.port}/hooks/in", body=b"{}", headers={})

    assert outcome.status_code == 200
    (received,) = receiver.received
    assert received.headers["host"] == f"rebinding.test:{receiver.port}"


def test_a_name_with_any_private_address_is_refused(production_targets, monkeypatch):
    def mixed(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", mixed)

    outcome = sender.post("https://mixed.test/hook", body=b"{}", headers={})

    assert outcome.refused
    assert outcome.error == "Refused target: mixed.test resolves to 10.0.0.5, a private address."
