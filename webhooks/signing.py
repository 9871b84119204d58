"""Standard Webhooks signatures (https://www.standardwebhooks.com/, "Signature scheme"), as
docs/webhooks.md "Verifying the signature" describes them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable

SECRET_PREFIX = "whsec_"  # noqa: S105 (the prefix, not a secret)
# The specification asks for between 24 and 64 bytes.
SECRET_BYTES = 32


def secret_generate() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def _signature(secret: str, signed: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")


def signature_header(
    secrets_in_use: Iterable[str], *, message_id: str, timestamp: int, body: bytes
) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return " ".join(_signature(secret, signed) for secret in secrets_in_use)
