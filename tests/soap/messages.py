"""Raw SOAP messages and a reader for the answers, shared by the SOAP tests.

Deliberately independent of soapcalc: envelopes are written out by hand as a client would, and
faults are read with plain lxml.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from lxml import etree

SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope"
SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12_TYPE = "application/soap+xml; charset=utf-8"
SOAP11_TYPE = "text/xml; charset=utf-8"
ENDPOINT = "/soap/calculator"


def namespace() -> str:
    return settings.SOAP_NAMESPACE


def action() -> str:
    return f"{namespace()}/AddValuesMessage"


def add_values(first: object, second: object, *, ns: str | None = None) -> str:
    return (
        f'<AddValues xmlns="{ns or namespace()}">'
        f"<FirstValue>{first}</FirstValue><SecondValue>{second}</SecondValue>"
        "</AddValues>"
    )


def envelope(body: str, *, header: str = "", envelope_ns: str = SOAP12_NS) -> str:
    header_xml = f"<env:Header>{header}</env:Header>" if header else ""
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<env:Envelope xmlns:env="{envelope_ns}">{header_xml}<env:Body>{body}</env:Body>'
        "</env:Envelope>"
    )


def envelope11(body: str, *, header: str = "") -> str:
    return envelope(body, header=header, envelope_ns=SOAP11_NS)


def post12(client, data: str | bytes, *, content_type: str = SOAP12_TYPE, **extra):
    return client.post(ENDPOINT, data, content_type=content_type, **extra)


def post11(client, data: str | bytes, *, soap_action: str | None = "default", **extra):
    if soap_action == "default":
        soap_action = f'"{action()}"'
    if soap_action is not None:
        extra["HTTP_SOAPACTION"] = soap_action
    return client.post(ENDPOINT, data, content_type=SOAP11_TYPE, **extra)


def result_of(response) -> int:
    assert response.status_code == 200, response.content
    root = etree.fromstring(response.content)
    (result,) = root.iterfind(f".//{{{namespace()}}}AddValuesResponse/{{{namespace()}}}Result")
    return int(result.text)


@dataclass
class Fault:
    version: str
    code: str  # local name of the code, e.g. "Sender" or "Client"
    reason: str
    detail: etree._Element | None
    header: etree._Element | None
    root: etree._Element


def fault_of(response) -> Fault:
    """The fault in a response, checked to be a well-formed fault of either SOAP version."""
    root = etree.fromstring(response.content)
    envelope_ns = etree.QName(root).namespace
    assert etree.QName(root).localname == "Envelope"
    header = root.find(f"{{{envelope_ns}}}Header")
    (fault,) = root.iterfind(f"{{{envelope_ns}}}Body/{{{envelope_ns}}}Fault")
    if envelope_ns == SOAP12_NS:
        assert response["Content-Type"].startswith("application/soap+xml")
        value = fault.find(f"{{{SOAP12_NS}}}Code/{{{SOAP12_NS}}}Value")
        reason = fault.find(f"{{{SOAP12_NS}}}Reason/{{{SOAP12_NS}}}Text")
        detail = fault.find(f"{{{SOAP12_NS}}}Detail")
        version = "1.2"
    else:
        assert envelope_ns == SOAP11_NS
        assert response["Content-Type"].startswith("text/xml")
        value = fault.find("faultcode")
        reason = fault.find("faultstring")
        detail = fault.find("detail")
        version = "1.1"
    prefix, _, local = value.text.partition(":")
    assert value.nsmap[prefix] == envelope_ns, "the fault code must be in the envelope namespace"
    return Fault(version, local, reason.text, detail, header, root)
