"""SOAP_NAMESPACE is reflected in both WSDLs, the schema requests are checked against, and the
responses; the schema and templates are built per namespace, not once for the first one."""

from __future__ import annotations

import pytest
from django.test import override_settings
from lxml import etree

from tests.soap.messages import (
    ENDPOINT,
    add_values,
    envelope,
    envelope11,
    fault_of,
    post11,
    post12,
    result_of,
)

OTHER = "urn:example:calculator:v2"
DEFAULT = "http://example.org/calculator"


@pytest.fixture(autouse=True)
def _warm_default_namespace(client):
    # Use the default namespace first, so that anything cached for it would show below.
    with override_settings(SOAP_NAMESPACE=DEFAULT):
        assert result_of(post12(client, envelope(add_values(1, 1, ns=DEFAULT)))) == 2


@override_settings(SOAP_NAMESPACE=OTHER)
@pytest.mark.parametrize("query", ["wsdl", "wsdl2"])
def test_both_wsdls_declare_the_overridden_namespace(client, query):
    wsdl = etree.fromstring(client.get(f"{ENDPOINT}?{query}").content)

    assert wsdl.get("targetNamespace") == OTHER
    schema = wsdl.find(".//{http://www.w3.org/2001/XMLSchema}schema")
    assert schema.get("targetNamespace") == OTHER
    assert f"{OTHER}/AddValuesMessage".encode() in etree.tostring(wsdl)
    assert DEFAULT.encode() not in etree.tostring(wsdl)


@override_settings(SOAP_NAMESPACE=OTHER)
def test_requests_in_the_overridden_namespace_are_answered_in_it(client):
    response = post12(client, envelope(add_values(2, 3, ns=OTHER)))

    root = etree.fromstring(response.content)
    assert root.findtext(f".//{{{OTHER}}}AddValuesResponse/{{{OTHER}}}Result") == "5"
    assert DEFAULT.encode() not in response.content


@override_settings(SOAP_NAMESPACE=OTHER)
def test_soap11_answers_in_the_overridden_namespace(client):
    response = post11(
        client, envelope11(add_values(2, 3, ns=OTHER)), soap_action=f'"{OTHER}/AddValuesMessage"'
    )

    assert etree.fromstring(response.content).findtext(f".//{{{OTHER}}}Result") == "5"


@override_settings(SOAP_NAMESPACE=OTHER)
def test_requests_in_the_old_namespace_fail_the_new_schema(client):
    response = post12(client, envelope(add_values(2, 3, ns=DEFAULT)))

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


@override_settings(SOAP_NAMESPACE=OTHER)
def test_the_old_action_is_refused_under_the_new_namespace(client):
    content_type = f'application/soap+xml; action="{DEFAULT}/AddValuesMessage"'

    response = post12(client, envelope(add_values(2, 3, ns=OTHER)), content_type=content_type)

    assert response.status_code == 400
    assert "action" in fault_of(response).reason


@override_settings(SOAP_NAMESPACE=OTHER)
def test_calculation_failure_detail_is_in_the_overridden_namespace(client):
    response = client.get(
        f"{ENDPOINT}?FirstValue=-2147483648&SecondValue=-1", HTTP_ACCEPT="application/soap+xml"
    )

    (failure,) = fault_of(response).detail
    assert failure.tag == f"{{{OTHER}}}CalculationFailure"


ODD = "http://example.org/calc?v=2&x='y'"


@override_settings(SOAP_NAMESPACE=ODD)
def test_a_namespace_needing_escapes_still_makes_well_formed_documents(client):
    escaped = ODD.replace("&", "&amp;").replace("'", "&apos;")

    wsdl = etree.fromstring(client.get(f"{ENDPOINT}?wsdl").content)
    wsdl2 = etree.fromstring(client.get(f"{ENDPOINT}?wsdl2").content)
    response = post12(client, envelope(add_values(1, 2, ns=escaped)))

    assert wsdl.get("targetNamespace") == wsdl2.get("targetNamespace") == ODD
    assert etree.fromstring(response.content).findtext(f".//{{{ODD}}}Result") == "3"


@pytest.mark.parametrize("namespace", ["", "not a uri", 'urn:x:"quoted"', "no-scheme"])
def test_a_namespace_that_is_not_a_uri_is_a_receiver_fault(client, namespace):
    with override_settings(SOAP_NAMESPACE=namespace):
        response = post12(client, envelope(add_values(1, 2)))

    assert response.status_code == 500
    fault = fault_of(response)
    assert fault.code == "Receiver"
    assert namespace not in fault.reason or not namespace
