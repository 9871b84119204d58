"""Every fault path of the endpoint, with raw envelopes: codes and HTTP statuses of the contract."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.test import override_settings
from lxml import etree

from tests.soap.messages import (
    ENDPOINT,
    SOAP11_NS,
    SOAP12_NS,
    action,
    add_values,
    envelope,
    envelope11,
    fault_of,
    namespace,
    post11,
    post12,
    result_of,
)

TRACE_NS = "urn:example:trace"


def wsdl_schema(client) -> etree.XMLSchema:
    wsdl = etree.fromstring(client.get(f"{ENDPOINT}?wsdl").content)
    schema = wsdl.find(".//{http://www.w3.org/2001/XMLSchema}schema")
    return etree.XMLSchema(etree.fromstring(etree.tostring(schema)))


# --- Sender: anything wrong with the request -----------------------------------------------

MALFORMED_REQUESTS = {
    "not xml": "this is not XML",
    "truncated xml": envelope(add_values(1, 2))[:-20],
    "undefined entity": envelope(add_values("&nothing;", 2)),
    "undeclared prefix in a header block": envelope(
        add_values(1, 2), header='<x:Trace env:mustUnderstand="false">x</x:Trace>'
    ),
    "malformed namespace declaration": envelope(
        add_values(1, 2).replace("<FirstValue>", '<FirstValue xmlns:="urn:x">')
    ),
    "root is not an envelope": add_values(1, 2),
    "envelope without body": f'<env:Envelope xmlns:env="{SOAP12_NS}"/>',
    "header after body": (
        f'<env:Envelope xmlns:env="{SOAP12_NS}"><env:Body>{add_values(1, 2)}</env:Body>'
        "<env:Header/></env:Envelope>"
    ),
    "element after body": (
        f'<env:Envelope xmlns:env="{SOAP12_NS}"><env:Body>{add_values(1, 2)}</env:Body>'
        '<x:Extra xmlns:x="urn:example:x"/></env:Envelope>'
    ),
    "text in envelope": (
        f'<env:Envelope xmlns:env="{SOAP12_NS}">hello<env:Body>{add_values(1, 2)}</env:Body>'
        "</env:Envelope>"
    ),
    "text in body": envelope(f"hello {add_values(1, 2)}"),
    "empty body": envelope(""),
    "two operations in body": envelope(add_values(1, 2) + add_values(3, 4)),
    "missing SecondValue": envelope(
        f'<AddValues xmlns="{namespace()}"><FirstValue>1</FirstValue></AddValues>'
    ),
    "values in the wrong order": envelope(
        f'<AddValues xmlns="{namespace()}"><SecondValue>1</SecondValue>'
        "<FirstValue>2</FirstValue></AddValues>"
    ),
    "value given twice": envelope(
        f'<AddValues xmlns="{namespace()}"><FirstValue>1</FirstValue><FirstValue>1</FirstValue>'
        "<SecondValue>2</SecondValue></AddValues>"
    ),
    "extra element": envelope(
        f'<AddValues xmlns="{namespace()}"><FirstValue>1</FirstValue>'
        "<SecondValue>2</SecondValue><ThirdValue>3</ThirdValue></AddValues>"
    ),
    "unqualified values": envelope(
        f'<a:AddValues xmlns:a="{namespace()}"><FirstValue>1</FirstValue>'
        "<SecondValue>2</SecondValue></a:AddValues>"
    ),
    "operation in another namespace": envelope(add_values(1, 2, ns="urn:example:elsewhere")),
    "unknown attribute": envelope(add_values(1, 2).replace("<AddValues ", '<AddValues x="1" ')),
    "a response sent as a request": envelope(
        f'<AddValuesResponse xmlns="{namespace()}"><Result>3</Result></AddValuesResponse>'
    ),
    "unqualified header block": envelope(add_values(1, 2), header="<Trace>x</Trace>"),
    "invalid mustUnderstand value": envelope(
        add_values(1, 2),
        header=f'<x:Trace xmlns:x="{TRACE_NS}" env:mustUnderstand="yes">x</x:Trace>',
    ),
}


@pytest.mark.parametrize("body", MALFORMED_REQUESTS.values(), ids=MALFORMED_REQUESTS.keys())
def test_malformed_soap12_request_is_a_sender_fault_with_400(client, body):
    response = post12(client, body)

    assert response.status_code == 400
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "Sender")
    assert fault.reason
    assert fault.detail is None


# SOAP 1.1 (4.1.1) allows namespace-qualified elements after the Body.
MALFORMED_SOAP11_REQUESTS = {
    name: body.replace(SOAP12_NS, SOAP11_NS)
    for name, body in MALFORMED_REQUESTS.items()
    if name != "element after body"
}


@pytest.mark.parametrize(
    "body", MALFORMED_SOAP11_REQUESTS.values(), ids=MALFORMED_SOAP11_REQUESTS.keys()
)
def test_malformed_soap11_request_is_a_client_fault_with_500(client, body):

    response = post11(client, body)

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.1", "Client")


def test_soap11_allows_a_qualified_element_after_the_body(client):
    body = (
        f'<env:Envelope xmlns:env="{SOAP11_NS}"><env:Body>{add_values(1, 2)}</env:Body>'
        '<x:Extra xmlns:x="urn:example:x"/></env:Envelope>'
    )

    assert result_of(post11(client, body)) == 3


def test_schema_fault_says_what_is_wrong(client):
    response = post12(client, envelope(add_values("1_000", 2)))

    reason = fault_of(response).reason
    assert "1_000" in reason
    assert "xs:int" in reason


def test_wrong_action_parameter_is_a_sender_fault(client):
    content_type = 'application/soap+xml; charset=utf-8; action="urn:example:Subtract"'

    response = post12(client, envelope(add_values(1, 2)), content_type=content_type)

    assert response.status_code == 400
    fault = fault_of(response)
    assert fault.code == "Sender"
    assert "action" in fault.reason


def test_wrong_soapaction_is_a_client_fault(client):
    response = post11(client, envelope11(add_values(1, 2)), soap_action='"urn:example:Subtract"')

    assert response.status_code == 500
    assert fault_of(response).code == "Client"


def test_missing_soapaction_is_a_client_fault(client):
    response = post11(client, envelope11(add_values(1, 2)), soap_action=None)

    assert response.status_code == 500
    fault = fault_of(response)
    assert fault.code == "Client"
    assert action() in fault.reason


@pytest.mark.parametrize(
    "content_type", ["application/xml", "application/json", "text/plain", "", "garbage;;="]
)
def test_media_type_that_names_no_soap_version_is_415(client, content_type):
    response = client.post(ENDPOINT, envelope(add_values(1, 2)), content_type=content_type)

    assert response.status_code == 415
    assert fault_of(response).code == "Sender"


@pytest.mark.parametrize(
    ("content_type", "version"),
    [("application/soap+xml; charset=iso-8859-1", "1.2"), ("text/xml; charset=utf-16", "1.1")],
)
def test_charset_other_than_utf8_is_415_in_the_version_named(client, content_type, version):
    response = client.post(
        ENDPOINT, envelope(add_values(1, 2)), content_type=content_type, HTTP_SOAPACTION='""'
    )

    assert response.status_code == 415
    assert fault_of(response).version == version


@pytest.mark.parametrize("method", ["put", "patch", "delete", "options"])
def test_other_methods_are_405_with_allow(client, method):
    response = getattr(client, method)(ENDPOINT, envelope(add_values(1, 2)))

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST"
    assert fault_of(response).code == "Sender"


# --- VersionMismatch --------------------------------------------------------------------------


def assert_upgrade_lists_both_envelopes(fault) -> None:
    upgrade = fault.header.find(f"{{{SOAP12_NS}}}Upgrade")
    supported = [
        etree.QName(element.nsmap[element.get("qname").split(":")[0]], "Envelope").text
        for element in upgrade.iterfind(f"{{{SOAP12_NS}}}SupportedEnvelope")
    ]
    assert supported == [f"{{{SOAP12_NS}}}Envelope", f"{{{SOAP11_NS}}}Envelope"]


def test_soap11_envelope_sent_as_soap12_is_a_version_mismatch(client):
    response = post12(client, envelope11(add_values(1, 2)))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "VersionMismatch")
    assert_upgrade_lists_both_envelopes(fault)


def test_soap12_envelope_sent_as_soap11_is_a_version_mismatch(client):
    response = post11(client, envelope(add_values(1, 2)))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.1", "VersionMismatch")
    assert_upgrade_lists_both_envelopes(fault)


@pytest.mark.parametrize("post", [post12, post11])
def test_envelope_in_a_foreign_namespace_is_a_version_mismatch(client, post):
    body = envelope(add_values(1, 2), envelope_ns="urn:example:not-soap")

    response = post(client, body)

    assert response.status_code == 500
    assert fault_of(response).code == "VersionMismatch"


# --- MustUnderstand ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attributes",
    [
        'env:mustUnderstand="true"',
        'env:mustUnderstand=" 1 "',
        'env:mustUnderstand="true" env:role="http://www.w3.org/2003/05/soap-envelope/role/next"',
        'env:mustUnderstand="true"'
        ' env:role="http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver"',
    ],
)
def test_header_aimed_at_us_with_must_understand_is_a_must_understand_fault(client, attributes):
    header = (
        f'<x:Trace xmlns:x="{TRACE_NS}">optional</x:Trace>'
        f'<x:Security xmlns:x="{TRACE_NS}" {attributes}>secret</x:Security>'
    )

    response = post12(client, envelope(add_values(1, 2), header=header))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "MustUnderstand")
    (not_understood,) = fault.header.iterfind(f"{{{SOAP12_NS}}}NotUnderstood")
    prefix, _, local = not_understood.get("qname").partition(":")
    assert (not_understood.nsmap[prefix], local) == (TRACE_NS, "Security")


def test_must_understand_is_checked_before_the_body(client):
    header = f'<x:Security xmlns:x="{TRACE_NS}" env:mustUnderstand="true"/>'

    response = post12(client, envelope(add_values("not a number", 2), header=header))

    assert fault_of(response).code == "MustUnderstand"


@pytest.mark.parametrize(
    "attributes",
    [
        'env:mustUnderstand="1"',
        'env:mustUnderstand="1" env:actor="http://schemas.xmlsoap.org/soap/actor/next"',
    ],
)
def test_soap11_header_with_must_understand_is_a_must_understand_fault(client, attributes):
    header = f'<x:Security xmlns:x="{TRACE_NS}" {attributes}>secret</x:Security>'

    response = post11(client, envelope11(add_values(1, 2), header=header))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.1", "MustUnderstand")
    assert "Security" in fault.reason
    assert fault.header is None  # NotUnderstood is a SOAP 1.2 header block


# --- CalculationFault -------------------------------------------------------------------------


def calculation_failure(fault) -> etree._Element:
    (failure,) = fault.detail
    assert failure.tag == f"{{{namespace()}}}CalculationFailure"
    return failure


@pytest.mark.parametrize(("first", "second"), [(2147483647, 1), (-2147483648, -1)])
def test_overflow_is_a_calculation_fault_with_its_detail_in_soap12(client, first, second):
    response = post12(client, envelope(add_values(first, second)))

    assert response.status_code == 400
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "Sender")
    failure = calculation_failure(fault)
    wsdl_schema(client).assertValid(etree.ElementTree(etree.fromstring(etree.tostring(failure))))
    assert int(failure.findtext(f"{{{namespace()}}}ErrorCode")) == 1
    assert "xs:int" in failure.findtext(f"{{{namespace()}}}Reason")
    assert datetime.fromisoformat(failure.get("Timestamp")).tzinfo is not None


def test_overflow_is_a_client_fault_with_its_detail_in_soap11(client):
    response = post11(client, envelope11(add_values(2147483647, 2147483647)))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.1", "Client")
    failure = calculation_failure(fault)
    wsdl_schema(client).assertValid(etree.ElementTree(etree.fromstring(etree.tostring(failure))))


# --- Receiver: the service itself cannot answer ------------------------------------------------


@override_settings(SOAP_NAMESPACE="")
def test_misconfigured_service_is_a_receiver_fault_in_soap12(client):
    response = post12(client, envelope(add_values(1, 2)))

    assert response.status_code == 500
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "Receiver")
    assert "SOAP_NAMESPACE" not in fault.reason


@override_settings(SOAP_NAMESPACE="")
def test_misconfigured_service_is_a_server_fault_in_soap11(client):
    response = post11(client, envelope11(add_values(1, 2)), soap_action='""')

    assert response.status_code == 500
    assert fault_of(response).code == "Server"


@override_settings(SOAP_NAMESPACE="")
def test_misconfigured_service_answers_wsdl_requests_with_a_receiver_fault(client):
    response = client.get(f"{ENDPOINT}?wsdl")

    assert response.status_code == 500
    assert fault_of(response).code == "Receiver"
