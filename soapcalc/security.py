"""WS-Security UsernameToken: who sent a SOAP request, from its `wsse:Security` header block.

The Password is one of the user's access tokens, as PasswordText (OASIS WSS UsernameToken
Profile 1.1); docs/soap.md states the Created window, the nonce replay cache and the fault codes
(WSS SOAP Message Security 1.1, 12), docs/decisions/ws-security.md why PasswordDigest is refused.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime, timedelta

from django.core.cache import cache
from django.utils import timezone
from lxml import etree

from blogs.models import AccessToken
from blogs.services import token_authenticate
from soapcalc.envelopes import aimed_at_us, holds_text
from soapcalc.faults import SoapFault, sender_fault
from soapcalc.versions import SoapVersion

WSSE_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
WSU_NS = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
_PROFILE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0"
PASSWORD_TEXT = f"{_PROFILE}#PasswordText"
BASE64_BINARY = (
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
)

SECURITY = f"{{{WSSE_NS}}}Security"
USERNAME_TOKEN = f"{{{WSSE_NS}}}UsernameToken"
USERNAME = f"{{{WSSE_NS}}}Username"
PASSWORD = f"{{{WSSE_NS}}}Password"
NONCE = f"{{{WSSE_NS}}}Nonce"
CREATED = f"{{{WSU_NS}}}Created"
TIMESTAMP = f"{{{WSU_NS}}}Timestamp"
EXPIRES = f"{{{WSU_NS}}}Expires"

FAILED_AUTHENTICATION = f"{{{WSSE_NS}}}FailedAuthentication"
INVALID_SECURITY = f"{{{WSSE_NS}}}InvalidSecurity"
UNSUPPORTED_TOKEN = f"{{{WSSE_NS}}}UnsupportedSecurityToken"
MESSAGE_EXPIRED = f"{{{WSSE_NS}}}MessageExpired"

CREATED_WINDOW = timedelta(minutes=5)
CLOCK_SKEW = timedelta(minutes=1)
# A nonce must be remembered for as long as its Created can be accepted: the window, plus the
# skew a Created from the future was allowed, plus a margin.
NONCE_MEMORY_SECONDS = int((CREATED_WINDOW + 2 * CLOCK_SKEW).total_seconds())
MAX_USERNAME_CHARS = 150  # Django's User.username
MAX_NONCE_CHARS = 256

UNDERSTOOD_HEADERS = frozenset({SECURITY})


def authenticate(
    header: etree._Element | None, version: SoapVersion, *, required: bool
) -> AccessToken | None:
    """The access token that the UsernameToken of the one Security block aimed at this node
    proves, None when there is no such block and none is required; any other outcome is a
    SoapFault."""
    blocks = [] if header is None else [b for b in header if b.tag == SECURITY]
    blocks = [block for block in blocks if aimed_at_us(block, version)]
    if not blocks:
        if required:
            raise _failed("This service requires a wsse:Security header with a UsernameToken")
        return None
    if len(blocks) > 1:
        raise _invalid("More than one wsse:Security header block is aimed at this service")
    tokens = []
    for child in _elements(blocks[0]):
        if child.tag == USERNAME_TOKEN:
            tokens.append(child)
        elif child.tag == TIMESTAMP:
            _check_timestamp(child)
        else:
            name = etree.QName(child).localname
            raise security_fault(
                UNSUPPORTED_TOKEN, f"The Security header holds a {name}, which is not supported"
            )
    if len(tokens) != 1:
        raise _invalid("The Security header must hold exactly one UsernameToken")
    return _check_token(tokens[0])


def _check_token(element: etree._Element) -> AccessToken:
    found: dict[str, etree._Element] = {}
    for child in _elements(element):
        name = etree.QName(child).localname
        if child.tag not in (USERNAME, PASSWORD, NONCE, CREATED):
            raise _invalid(f"The UsernameToken holds an unexpected {name}")
        if child.tag in found:
            raise _invalid(f"The UsernameToken holds more than one {name}")
        found[child.tag] = child
    if USERNAME not in found:
        raise _invalid("The UsernameToken has no Username")
    username = _text(found[USERNAME])
    if not username or len(username) > MAX_USERNAME_CHARS:
        raise _failed("The username or the access token is wrong")
    password, nonce, created = found.get(PASSWORD), found.get(NONCE), found.get(CREATED)
    if nonce is not None and created is None:
        raise _invalid("A Nonce needs a Created, so that it need only be remembered for a while")
    # The whole token is read, and a malformed one refused, before any of it is checked.
    plain = None if password is None else _text(password)
    nonce_bytes = None if nonce is None else _nonce(nonce)
    created_at = None if created is None else _instant(created)

    # WSS UsernameToken Profile 1.1, 3.1: PasswordText when no Type is given.
    if password is not None and (password.get("Type") or PASSWORD_TEXT).strip() != PASSWORD_TEXT:
        raise security_fault(
            UNSUPPORTED_TOKEN,
            "Only PasswordText is accepted: the password is an access token, sent over TLS",
        )
    if plain is None:
        raise _failed("The UsernameToken has no Password")
    if created_at is not None:
        now = timezone.now()
        if created_at < now - CREATED_WINDOW:
            raise _failed("The UsernameToken was created more than 5 minutes ago")
        if created_at > now + CLOCK_SKEW:
            raise _failed("The UsernameToken was created in the future")
    access = token_authenticate(plain=plain, username=username)
    # One answer for an unknown user, a wrong token and someone else's token.
    if access is None:
        raise _failed("The username or the access token is wrong")
    # Only after the credentials hold, so that nobody without them can fill the cache. Hashed: a
    # fixed-length key whatever the nonce, and no client bytes in the cache's keys.
    if nonce_bytes is not None:
        key = f"soap:wsse-nonce:{hashlib.sha256(nonce_bytes).hexdigest()}"
        if not cache.add(key, 1, timeout=NONCE_MEMORY_SECONDS):
            raise _failed("This Nonce was used before: the message is a replay")
    return access


def security_fault(code: str, reason: str) -> SoapFault:
    return sender_fault(reason, subcode=code)


def _failed(reason: str) -> SoapFault:
    return security_fault(FAILED_AUTHENTICATION, reason)


def _invalid(reason: str) -> SoapFault:
    return security_fault(INVALID_SECURITY, reason)


def _elements(parent: etree._Element) -> list[etree._Element]:
    if holds_text(parent):
        raise _invalid(f"The {etree.QName(parent).localname} holds text among its elements")
    return list(parent.iterchildren(etree.Element))


def _text(element: etree._Element) -> str:
    if len(element):
        raise _invalid(f"The {etree.QName(element).localname} must hold text only")
    return (element.text or "").strip()


def _nonce(element: etree._Element) -> bytes:
    encoding = (element.get("EncodingType") or BASE64_BINARY).strip()
    if encoding != BASE64_BINARY:
        raise security_fault(UNSUPPORTED_TOKEN, "A Nonce must be Base64Binary encoded")
    text = _text(element)
    if not text or len(text) > MAX_NONCE_CHARS:
        raise _invalid(f"A Nonce must hold 1 to {MAX_NONCE_CHARS} characters of base64")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error is one
        raise _invalid("The Nonce is not base64") from None


def _instant(element: etree._Element) -> datetime:
    """An xs:dateTime with its time zone (WSS utility: UTC), as an aware datetime."""
    name = etree.QName(element).localname
    text = _text(element)
    try:
        instant = datetime.fromisoformat(text) if len(text) <= 40 else None
    except ValueError:
        instant = None
    if instant is None or instant.tzinfo is None or "T" not in text:
        raise _invalid(
            f"{name} must be a date and time with its time zone, such as 2026-01-01T12:00:00Z"
        )
    return instant


def _check_timestamp(element: etree._Element) -> None:
    expires = [child for child in _elements(element) if child.tag == EXPIRES]
    if len(expires) > 1:
        raise _invalid("The Timestamp holds more than one Expires")
    if expires and _instant(expires[0]) < timezone.now() - CLOCK_SKEW:
        raise security_fault(MESSAGE_EXPIRED, "The message's Timestamp has expired")
