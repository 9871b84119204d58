"""The two SOAP versions served on the one endpoint, and what tells them apart."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)  # identity hash: cheap as a per-request cache key
class SoapVersion:
    name: str
    envelope_ns: str
    media_type: str
    # Fault code local names: SOAP 1.2 says Sender/Receiver where SOAP 1.1 says Client/Server.
    sender_code: str
    receiver_code: str
    # SOAP 1.2 header blocks aimed at this node: no role, or one of these roles (SOAP 1.2
    # part 1, 2.2). SOAP 1.1 says actor and has only "next" (SOAP 1.1, 4.2.2).
    role_attribute: str
    our_roles: frozenset[str]

    @property
    def content_type(self) -> str:
        return f"{self.media_type}; charset=utf-8"

    def tag(self, local_name: str) -> str:
        return f"{{{self.envelope_ns}}}{local_name}"


SOAP12 = SoapVersion(
    name="1.2",
    envelope_ns="http://www.w3.org/2003/05/soap-envelope",
    media_type="application/soap+xml",
    sender_code="Sender",
    receiver_code="Receiver",
    role_attribute="role",
    our_roles=frozenset(
        {
            "http://www.w3.org/2003/05/soap-envelope/role/next",
            "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver",
        }
    ),
)

SOAP11 = SoapVersion(
    name="1.1",
    envelope_ns="http://schemas.xmlsoap.org/soap/envelope/",
    media_type="text/xml",
    sender_code="Client",
    receiver_code="Server",
    role_attribute="actor",
    our_roles=frozenset({"http://schemas.xmlsoap.org/soap/actor/next"}),
)

BY_MEDIA_TYPE = {version.media_type: version for version in (SOAP12, SOAP11)}
BY_ENVELOPE_NS = {version.envelope_ns: version for version in (SOAP12, SOAP11)}
