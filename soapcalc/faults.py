"""SOAP faults: what went wrong, which HTTP status that is, and the envelope that says so.

HTTP statuses: SOAP 1.2 part 2, 7.5.2.2, table 20; SOAP 1.1, 6.2: every fault 500; HTTP-level
refusals keep their own (docs/soap.md, "HTTP statuses").
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum

from lxml import etree

from soapcalc.versions import SOAP11, SOAP12, SoapVersion

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
MAX_REASON_CHARS = 300
# The prefixes clients expect to read in a fault code (some compare the text, not the QName).
_PREFIXES = {
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd": "wsse"
}

# Characters XML 1.0 cannot carry; a reason quoting hostile input must still serialize.
_NOT_XML_CHARS = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class FaultCode(StrEnum):
    SENDER = "Sender"
    RECEIVER = "Receiver"
    VERSION_MISMATCH = "VersionMismatch"
    MUST_UNDERSTAND = "MustUnderstand"


@dataclass(eq=False)
class SoapFault(Exception):
    """Raised anywhere while handling a request; the view turns it into a fault envelope."""

    code: FaultCode
    reason: str
    _: KW_ONLY
    status: int | None = None
    detail: etree._Element | None = None
    not_understood: tuple[str, ...] = ()  # Clark names of the header blocks
    headers: dict[str, str] = field(default_factory=dict)
    # A Clark name refining the code: the SOAP 1.2 Subcode, and the SOAP 1.1 faultcode itself
    # (WS-Security's faults: WSS SOAP Message Security 1.1, 12).
    subcode: str | None = None

    def __post_init__(self) -> None:
        super().__init__(self.reason)
        self.reason = _printable(self.reason)

    def http_status(self, version: SoapVersion) -> int:
        if self.status is not None:
            return self.status
        return 400 if version is SOAP12 and self.code is FaultCode.SENDER else 500


def sender_fault(reason: str, **kwargs) -> SoapFault:
    return SoapFault(FaultCode.SENDER, reason, **kwargs)


def render_fault(fault: SoapFault, version: SoapVersion) -> bytes:
    envelope = etree.Element(version.tag("Envelope"), nsmap={"env": version.envelope_ns})
    _add_fault_headers(envelope, fault, version)
    body = etree.SubElement(envelope, version.tag("Body"))
    element = etree.SubElement(body, version.tag("Fault"))
    code_name = {FaultCode.SENDER: version.sender_code, FaultCode.RECEIVER: version.receiver_code}
    code_text = f"env:{code_name.get(fault.code, fault.code.value)}"
    if version is SOAP12:
        code = etree.SubElement(element, SOAP12.tag("Code"))
        etree.SubElement(code, SOAP12.tag("Value")).text = code_text
        if fault.subcode is not None:
            subcode = etree.SubElement(code, SOAP12.tag("Subcode"))
            _qname_child(subcode, SOAP12.tag("Value"), fault.subcode)
        reason = etree.SubElement(element, SOAP12.tag("Reason"))
        text = etree.SubElement(reason, SOAP12.tag("Text"))
        detail_tag = SOAP12.tag("Detail")
    else:
        # SOAP 1.1, 4.4: faultcode, faultstring and detail are unqualified.
        if fault.subcode is not None:
            _qname_child(element, "faultcode", fault.subcode)
        else:
            etree.SubElement(element, "faultcode").text = code_text
        text = etree.SubElement(element, "faultstring")
        detail_tag = "detail"
    text.set(XML_LANG, "en")
    text.text = fault.reason
    if fault.detail is not None:
        etree.SubElement(element, detail_tag).append(fault.detail)
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def calculation_failure(
    *, namespace: str, error_code: int, reason: str, timestamp: str
) -> etree._Element:
    """The detail of the declared CalculationFault, as the WSDL's CalculationFailure element."""
    failure = etree.Element(f"{{{namespace}}}CalculationFailure", nsmap={"tns": namespace})
    failure.set("Timestamp", timestamp)
    etree.SubElement(failure, f"{{{namespace}}}ErrorCode").text = str(error_code)
    etree.SubElement(failure, f"{{{namespace}}}Reason").text = reason
    return failure


def _add_fault_headers(envelope: etree._Element, fault: SoapFault, version: SoapVersion) -> None:
    # NotUnderstood exists in SOAP 1.2 only; SOAP 1.1 names the blocks in the faultstring.
    not_understood = fault.not_understood if version is SOAP12 else ()
    if not not_understood and fault.code is not FaultCode.VERSION_MISMATCH:
        return
    header = etree.SubElement(envelope, version.tag("Header"))
    if fault.code is FaultCode.VERSION_MISMATCH:
        # SOAP 1.2 part 1, 5.4.7: tell the sender which envelopes we do understand. The Upgrade
        # block is in the SOAP 1.2 namespace in either version's envelope (SOAP 1.2 appendix A).
        upgrade = etree.SubElement(header, SOAP12.tag("Upgrade"), nsmap={"up": SOAP12.envelope_ns})
        for index, supported in enumerate((SOAP12, SOAP11), start=1):
            prefix = f"ns{index}"
            element = etree.SubElement(
                upgrade, SOAP12.tag("SupportedEnvelope"), nsmap={prefix: supported.envelope_ns}
            )
            element.set("qname", f"{prefix}:Envelope")
    for clark in map(etree.QName, not_understood):
        element = etree.SubElement(
            header, version.tag("NotUnderstood"), nsmap={"q": clark.namespace}
        )
        element.set("qname", f"q:{clark.localname}")


def _qname_child(parent: etree._Element, tag: str, clark: str) -> None:
    """A child whose text is the QName `clark` (a Clark name), its prefix declared on it."""
    name = etree.QName(clark)
    prefix = _PREFIXES.get(name.namespace, "sub")
    child = etree.SubElement(parent, tag, nsmap={prefix: name.namespace})
    child.text = f"{prefix}:{name.localname}"


def _printable(text: str) -> str:
    text = _NOT_XML_CHARS.sub("\ufffd", text)
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 1] + "\u2026"
    return text
