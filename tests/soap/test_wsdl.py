"""Both service descriptions: WSDL 1.1 (WS-I Basic Profile rules) and WSDL 2.0."""

from __future__ import annotations

import pytest
from lxml import etree

from tests.soap.messages import ENDPOINT, action, namespace

WSDL = "http://schemas.xmlsoap.org/wsdl/"
WSDL_SOAP11 = "http://schemas.xmlsoap.org/wsdl/soap/"
WSDL_SOAP12 = "http://schemas.xmlsoap.org/wsdl/soap12/"
XSD = "http://www.w3.org/2001/XMLSchema"
WSDL2 = "http://www.w3.org/ns/wsdl"
WSOAP = "http://www.w3.org/ns/wsdl/soap"
WSDLX = "http://www.w3.org/ns/wsdl-extensions"
SOAP12_ENV = "http://www.w3.org/2003/05/soap-envelope"
SOAP_HTTP_PROTOCOL = "http://www.w3.org/2003/05/soap/bindings/HTTP/"
SOAP_RESPONSE_MEP = "http://www.w3.org/2003/05/soap/mep/soap-response/"
REQUEST_RESPONSE_MEP = "http://www.w3.org/2003/05/soap/mep/request-response/"
WSP = "http://www.w3.org/ns/ws-policy"
SP = "http://docs.oasis-open.org/ws-sx/ws-securitypolicy/200702"


@pytest.fixture
def wsdl11(client) -> etree._Element:
    response = client.get(f"{ENDPOINT}?wsdl")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    return etree.fromstring(response.content)


@pytest.fixture
def wsdl20(client) -> etree._Element:
    response = client.get(f"{ENDPOINT}?wsdl2")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/wsdl+xml; charset=utf-8"
    return etree.fromstring(response.content)


def qname(element: etree._Element, attribute: str) -> str:
    """An attribute holding a QName, resolved against the element's namespaces (Clark form)."""
    prefix, _, local = element.get(attribute).rpartition(":")
    return f"{{{element.nsmap[prefix or None]}}}{local}"


def tns(local: str) -> str:
    return f"{{{namespace()}}}{local}"


# --- WSDL 1.1 ---------------------------------------------------------------------------------


def test_wsdl11_declares_the_namespace_in_force(wsdl11):
    assert wsdl11.tag == f"{{{WSDL}}}definitions"
    assert wsdl11.get("targetNamespace") == namespace()
    assert wsdl11.find(f"{{{WSDL}}}types/{{{XSD}}}schema").get("targetNamespace") == namespace()


def test_wsdl11_schema_declares_the_three_elements(wsdl11):
    schema = wsdl11.find(f"{{{WSDL}}}types/{{{XSD}}}schema")
    names = [element.get("name") for element in schema.iterfind(f"{{{XSD}}}element")]
    assert names == ["AddValues", "AddValuesResponse", "CalculationFailure"]
    failure = schema.find(f"{{{XSD}}}element[@name='CalculationFailure']")
    (timestamp,) = failure.iterfind(f".//{{{XSD}}}attribute")
    assert (timestamp.get("name"), timestamp.get("use")) == ("Timestamp", "required")
    assert qname(timestamp, "type") == f"{{{XSD}}}dateTime"
    etree.XMLSchema(etree.fromstring(etree.tostring(schema)))  # compiles on its own


def test_wsdl11_messages_have_one_part_by_element(wsdl11):
    # WS-I BP R2204/R2210: a document-literal message has at most one part, referring to an element.
    messages = {m.get("name"): m for m in wsdl11.iterfind(f"{{{WSDL}}}message")}
    expected = {
        "AddValuesRequest": "AddValues",
        "AddValuesResponse": "AddValuesResponse",
        "CalculationFault": "CalculationFailure",
    }
    assert set(messages) == set(expected)
    for name, element in expected.items():
        (part,) = messages[name].iterfind(f"{{{WSDL}}}part")
        assert part.get("type") is None
        assert qname(part, "element") == tns(element)


def test_wsdl11_is_document_literal_wrapped(wsdl11):
    (operation,) = wsdl11.iterfind(f"{{{WSDL}}}portType/{{{WSDL}}}operation")
    assert operation.get("name") == "AddValues"
    request = wsdl11.find(f"{{{WSDL}}}message[@name='AddValuesRequest']/{{{WSDL}}}part")
    assert qname(request, "element") == tns(operation.get("name"))


@pytest.mark.parametrize("soap_ns", [WSDL_SOAP12, WSDL_SOAP11])
def test_wsdl11_binding_follows_the_basic_profile(wsdl11, soap_ns):
    (binding,) = [
        b
        for b in wsdl11.iterfind(f"{{{WSDL}}}binding")
        if b.find(f"{{{soap_ns}}}binding") is not None
    ]
    soap_binding = binding.find(f"{{{soap_ns}}}binding")
    assert soap_binding.get("style") == "document"
    assert soap_binding.get("transport") == "http://schemas.xmlsoap.org/soap/http"
    (operation,) = binding.iterfind(f"{{{WSDL}}}operation")
    assert operation.find(f"{{{soap_ns}}}operation").get("soapAction") == action()
    for direction in ("input", "output"):
        body = operation.find(f"{{{WSDL}}}{direction}/{{{soap_ns}}}body")
        assert body.get("use") == "literal"
        assert body.get("namespace") is None  # R2716
        assert body.get("parts") is None
    port_type_faults = {
        f.get("name")
        for f in wsdl11.iterfind(f"{{{WSDL}}}portType/{{{WSDL}}}operation/{{{WSDL}}}fault")
    }
    for fault in operation.iterfind(f"{{{WSDL}}}fault"):
        soap_fault = fault.find(f"{{{soap_ns}}}fault")
        assert soap_fault.get("name") == fault.get("name")  # R2721
        assert soap_fault.get("use") == "literal"
        assert soap_fault.get("namespace") is None
    assert {f.get("name") for f in operation.iterfind(f"{{{WSDL}}}fault")} == port_type_faults


def test_wsdl11_service_has_a_soap12_and_a_soap11_port_at_the_request_origin(client):
    response = client.get(f"{ENDPOINT}?wsdl", HTTP_HOST="localhost:8123", secure=True)
    wsdl = etree.fromstring(response.content)

    ports = wsdl.findall(f"{{{WSDL}}}service/{{{WSDL}}}port")
    addresses = {etree.QName(port[0]).namespace: port[0].get("location") for port in ports}
    assert addresses == {
        WSDL_SOAP12: "https://localhost:8123/soap/calculator",
        WSDL_SOAP11: "https://localhost:8123/soap/calculator",
    }


def test_both_wsdls_carry_the_same_schema(wsdl11, wsdl20):
    first = wsdl11.find(f"{{{WSDL}}}types/{{{XSD}}}schema")
    second = wsdl20.find(f"{{{WSDL2}}}types/{{{XSD}}}schema")

    def canonical(schema: etree._Element) -> bytes:
        # Exclusive c14n drops the declarations the two documents' roots differ in; xs and tns
        # are kept because QNames in attribute values use them.
        return etree.tostring(
            schema, method="c14n", exclusive=True, inclusive_ns_prefixes=["xs", "tns"]
        )

    assert canonical(first) == canonical(second)
    assert b'type="xs:int"' in canonical(first)


def test_uppercase_wsdl_query_is_understood(client):
    response = client.get(f"{ENDPOINT}?WSDL")

    assert etree.fromstring(response.content).tag == f"{{{WSDL}}}definitions"


# --- WSDL 2.0 ---------------------------------------------------------------------------------


def test_wsdl20_uses_the_w3c_namespaces_and_the_namespace_in_force(wsdl20):
    assert wsdl20.tag == f"{{{WSDL2}}}description"
    assert wsdl20.get("targetNamespace") == namespace()
    used = {etree.QName(element).namespace for element in wsdl20.iter(etree.Element)}
    # WS-Policy and WS-SecurityPolicy: the UsernameToken policy (tests/soap/test_ws_security.py).
    assert used == {WSDL2, XSD, WSP, SP}


def test_wsdl20_operation_is_safe_in_out_and_iri_style(wsdl20):
    (interface,) = wsdl20.iterfind(f"{{{WSDL2}}}interface")
    (operation,) = interface.iterfind(f"{{{WSDL2}}}operation")

    assert operation.get("name") == "AddValues"
    assert operation.get("pattern") == "http://www.w3.org/ns/wsdl/in-out"
    assert operation.get("style") == "http://www.w3.org/ns/wsdl/style/iri"
    assert operation.get(f"{{{WSDLX}}}safe") == "true"
    assert qname(operation.find(f"{{{WSDL2}}}input"), "element") == tns("AddValues")
    assert qname(operation.find(f"{{{WSDL2}}}output"), "element") == tns("AddValuesResponse")
    outfault = operation.find(f"{{{WSDL2}}}outfault")
    fault = interface.find(f"{{{WSDL2}}}fault")
    assert qname(outfault, "ref") == tns(fault.get("name")) == tns("CalculationFault")
    assert qname(fault, "element") == tns("CalculationFailure")


def test_wsdl20_has_a_post_binding_and_a_soap_response_get_binding(wsdl20):
    bindings = {b.get("name"): b for b in wsdl20.iterfind(f"{{{WSDL2}}}binding")}
    meps = {}
    for binding in bindings.values():
        assert binding.get("type") == WSOAP
        assert binding.get(f"{{{WSOAP}}}version") == "1.2"
        assert binding.get(f"{{{WSOAP}}}protocol") == SOAP_HTTP_PROTOCOL
        fault = binding.find(f"{{{WSDL2}}}fault")
        assert qname(fault, "ref") == tns("CalculationFault")
        assert qname(fault, f"{{{WSOAP}}}code") == f"{{{SOAP12_ENV}}}Sender"
        (operation,) = binding.iterfind(f"{{{WSDL2}}}operation")
        assert qname(operation, "ref") == tns("AddValues")
        meps[operation.get(f"{{{WSOAP}}}mep")] = operation
    assert set(meps) == {REQUEST_RESPONSE_MEP, SOAP_RESPONSE_MEP}
    assert meps[REQUEST_RESPONSE_MEP].get(f"{{{WSOAP}}}action") == action()


def test_wsdl20_endpoints_name_the_request_origin(client):
    response = client.get(f"{ENDPOINT}?wsdl2", HTTP_HOST="localhost:8123")
    wsdl = etree.fromstring(response.content)

    (service,) = wsdl.iterfind(f"{{{WSDL2}}}service")
    endpoints = service.findall(f"{{{WSDL2}}}endpoint")
    bindings = {b.get("name") for b in wsdl.iterfind(f"{{{WSDL2}}}binding")}
    assert {qname(e, "binding") for e in endpoints} == {tns(name) for name in bindings}
    assert {e.get("address") for e in endpoints} == {"http://localhost:8123/soap/calculator"}
