"""Generated SOAP request bodies: every answer is an envelope, and never a server fault.

"No 500" needs care here, because SOAP itself answers some client mistakes with 500: SOAP 1.2's
HTTP binding (Part 2, 7.5.2) gives 400 to Sender faults but 500 to VersionMismatch and
MustUnderstand, and SOAP 1.1 answers every fault with 500. What must never appear is a fault
blaming the server: Receiver (1.2) or Server (1.1).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

pytestmark = [pytest.mark.fuzz]

SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
VERSIONS = {
    "1.2": (SOAP12, "application/soap+xml; charset=utf-8"),
    "1.1": (SOAP11, "text/xml; charset=utf-8"),
}

values = st.one_of(
    st.integers(min_value=-(2**40), max_value=2**40).map(str),
    st.sampled_from(["", " +7 ", "007", "1.0", "1e3", "0x10", "1_000", "٣", "-0", "2147483647"]),
    st.text(max_size=20),
)
names = st.sampled_from(["FirstValue", "SecondValue", "Other", "firstvalue"])


@st.composite
def envelopes(draw) -> tuple[str, bytes]:
    version = draw(st.sampled_from(sorted(VERSIONS)))
    envelope_ns, media_type = VERSIONS[version]
    envelope_ns = draw(st.sampled_from([envelope_ns, envelope_ns, SOAP11, SOAP12, "urn:x"]))
    operation_ns = draw(st.sampled_from([settings.SOAP_NAMESPACE, "", "urn:other"]))
    children = draw(st.lists(st.tuples(names, values), max_size=4))
    root = etree.Element(f"{{{envelope_ns}}}Envelope")
    if draw(st.booleans()):
        header = etree.SubElement(root, f"{{{envelope_ns}}}Header")
        block = etree.SubElement(header, "{urn:ext}Block")
        if draw(st.booleans()):
            block.set(f"{{{envelope_ns}}}mustUnderstand", draw(st.sampled_from(["true", "1", "0"])))
    body = etree.SubElement(root, f"{{{envelope_ns}}}Body")
    operation = etree.SubElement(
        body, f"{{{operation_ns}}}AddValues" if operation_ns else "AddValues"
    )
    for name, value in children:
        child = etree.SubElement(operation, f"{{{operation_ns}}}{name}" if operation_ns else name)
        child.text = "".join(ch for ch in value if ch.isprintable())
    for _ in range(draw(st.integers(0, 3))):
        operation = etree.SubElement(operation, "Nested")
    return media_type, etree.tostring(root, xml_declaration=draw(st.booleans()), encoding="utf-8")


def assert_not_a_server_fault(response, media_type: str, sent: bytes) -> None:
    answer = etree.fromstring(response.content)
    assert answer.tag.endswith("}Envelope"), response.content[:200]
    if media_type.startswith("application/soap+xml"):
        assert response.status_code in {200, 400, 413, 415, 500}, (sent, response.content)
        codes = [code.text.split(":")[-1] for code in answer.iterfind(f".//{{{SOAP12}}}Value")]
        if response.status_code == 500:
            assert codes[:1] in (["VersionMismatch"], ["MustUnderstand"]), (sent, codes)
        assert "Receiver" not in codes, (sent, response.content)
    else:
        assert response.status_code in {200, 415, 500}, (sent, response.content)
        for code in answer.iter("faultcode"):
            local = code.text.split(":")[-1]
            assert local in {"Client", "VersionMismatch", "MustUnderstand"}, (
                sent,
                response.content,
            )


@given(envelope=envelopes())
def test_generated_envelopes_never_cause_a_server_fault(client, envelope):
    media_type, body = envelope
    response = client.post(
        "/soap/calculator",
        data=body,
        content_type=media_type,
        HTTP_SOAPACTION=f'"{settings.SOAP_NAMESPACE}/AddValuesMessage"',
    )
    assert_not_a_server_fault(response, media_type, body)


@given(
    payload=st.binary(max_size=400) | st.text(max_size=400).map(str.encode),
    media_type=st.sampled_from([media for _, media in VERSIONS.values()]),
)
def test_bodies_that_are_not_xml_are_sender_faults(client, payload, media_type):
    response = client.post(
        "/soap/calculator",
        data=payload,
        content_type=media_type,
        HTTP_SOAPACTION=f'"{settings.SOAP_NAMESPACE}/AddValuesMessage"',
    )
    assert_not_a_server_fault(response, media_type, payload)


@given(
    parameters=st.dictionaries(
        st.sampled_from(["FirstValue", "SecondValue", "firstValue", "wsdl", "Other"]),
        values,
        max_size=4,
    )
)
def test_generated_get_invocations_never_cause_a_server_fault(client, parameters):
    response = client.get("/soap/calculator", parameters, HTTP_ACCEPT="application/soap+xml")
    if response["Content-Type"].startswith("application/soap+xml"):
        assert_not_a_server_fault(response, "application/soap+xml", repr(parameters).encode())
    else:  # ?wsdl and friends answer the service description, or the help page
        assert response.status_code == 200, (parameters, response.status_code)
