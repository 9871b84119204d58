"""The HTTP sender: one POST to a subscriber, connected to the very address that was checked
(against DNS rebinding; docs/decisions/webhooks-targets.md)."""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

USER_AGENT = "blog-service-webhooks/1.2"
MAX_RESPONSE_BYTES = 64 * 1024
# The cloud providers' instance-metadata addresses, refused even where private targets are allowed
# only if they are not otherwise covered (169.254.169.254 is link-local, fd00:ec2::254 private).
METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
RETRYABLE_STATUSES = frozenset({408, 429})


class TargetRefused(Exception):
    """The target may not be sent to (its scheme, or an address it resolves to)."""


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    duration_ms: int
    response_excerpt: bytes = b""
    error: str = ""
    retry_after_seconds: float | None = None
    # Not sent on purpose (the target's scheme or address): never worth retrying.
    refused: bool = False

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    @property
    def retryable(self) -> bool:
        """Worth trying again later: no answer (timeout, refused connection, reset), a 5xx, 408 or
        429. A refused target and any other answer end the delivery."""
        if self.status_code is None:
            return not self.refused
        return self.status_code >= 500 or self.status_code in RETRYABLE_STATUSES


def address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why a delivery may not connect to `address`, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if settings.WEBHOOK_ALLOW_PRIVATE_TARGETS:
        return None
    # The specific kinds first: Python counts link-local, reserved and 0.0.0.0 as private too.
    for kind in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(address, f"is_{kind}"):
            return f"a {kind.replace('_', '-')} address"
    if not address.is_global:
        return "not a public address"
    return None


def resolve_target(host: str, port: int) -> str:
    """The one address to connect to: the first that getaddrinfo gives, if every one is allowed
    (a name with one private address among public ones is refused as a whole)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"Cannot resolve {host}: {error.strerror}") from None
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])
        if reason := address_refusal(address):
            raise TargetRefused(f"Refused target: {host} resolves to {address}, {reason}.")
    return infos[0][4][0]


class _PinnedConnection(http.client.HTTPConnection):
    """Connects to the checked address, whatever the name resolves to by then."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float, tls: bool) -> None:
        super().__init__(host, port, timeout=timeout)
        self.pinned_address = address
        self.tls_context = ssl.create_default_context() if tls else None
        # The Host header leaves out the port when it is the scheme's.
        self.default_port = http.client.HTTPS_PORT if tls else http.client.HTTP_PORT

    def connect(self) -> None:
        self.sock = socket.create_connection((self.pinned_address, self.port), self.timeout)
        if self.tls_context:
            # The certificate is checked against the name, not the address.
            self.sock = self.tls_context.wrap_socket(self.sock, server_hostname=self.host)


def _retry_after(value: str | None) -> float | None:
    """Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - timezone.now()).total_seconds())


def post(url: str, *, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST `body` to `url` once and say how it went; never raises for a network failure."""
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return Outcome(None, 0, error=f"Refused target: {url!r} is not http(s).", refused=True)
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    try:
        address = resolve_target(parts.hostname, port)
    except TargetRefused as refusal:
        return Outcome(None, elapsed(), error=str(refusal), refused=True)
    except OSError as error:
        return Outcome(None, elapsed(), error=str(error))
    connection = _PinnedConnection(parts.hostname, port, address=address, timeout=timeout, tls=tls)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(
            "POST",
            target,
            body=body,
            headers={
                **headers,
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "Content-Length": str(len(body)),
            },
        )
        response = connection.getresponse()
        excerpt = response.read(MAX_RESPONSE_BYTES)
        return Outcome(
            response.status,
            elapsed(),
            response_excerpt=excerpt,
            retry_after_seconds=_retry_after(response.getheader("Retry-After")),
        )
    except TimeoutError:
        return Outcome(None, elapsed(), error=f"Timed out after {timeout} s.")
    except ssl.SSLError as error:
        return Outcome(None, elapsed(), error=f"TLS failed: {error.reason or error}")
    except (OSError, http.client.HTTPException) as error:
        return Outcome(None, elapsed(), error=f"{type(error).__name__}: {error}")
    finally:
        connection.close()
