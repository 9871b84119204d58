"""WSDL 2.0 and the GET invocation open in a browser: a client whose Accept ranks application/xml
above the specific media type gets the same bytes as application/xml, which a browser shows
instead of saving as a file. SOAP clients keep the specific types (docs/soap.md, "Media types")."""

from __future__ import annotations

import pytest

from tests.soap.messages import ENDPOINT, fault_of, result_of

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
# node-soap's HttpClient sends this on every request, the WSDL fetch included.
NODE_SOAP_ACCEPT = "text/html,application/xhtml+xml,application/xml,text/xml;q=0.9,*/*;q=0.8"
GET_INVOCATION = f"{ENDPOINT}?FirstValue=2&SecondValue=3"


def get(client, path: str, accept: str | None):
    return client.get(path, headers={"Accept": accept} if accept else {})


def test_a_browser_gets_wsdl20_as_xml_it_can_show(client):
    browser = get(client, f"{ENDPOINT}?wsdl2", BROWSER_ACCEPT)
    soap_client = get(client, f"{ENDPOINT}?wsdl2", None)

    assert browser.status_code == 200
    assert browser["Content-Type"] == "application/xml; charset=utf-8"
    assert "Content-Disposition" not in browser
    assert browser.content == soap_client.content
    assert "Accept" in browser["Vary"]


@pytest.mark.parametrize("accept", [None, "*/*", "application/wsdl+xml", "application/*"])
def test_other_clients_keep_the_registered_wsdl20_media_type(client, accept):
    response = get(client, f"{ENDPOINT}?wsdl2", accept)

    assert response["Content-Type"] == "application/wsdl+xml; charset=utf-8"
    assert "Accept" in response["Vary"]


@pytest.mark.parametrize("accept", [None, "*/*", BROWSER_ACCEPT, NODE_SOAP_ACCEPT])
def test_wsdl11_stays_text_xml_for_every_client(client, accept):
    response = get(client, f"{ENDPOINT}?wsdl", accept)

    assert response["Content-Type"] == "text/xml; charset=utf-8"


def test_a_browser_gets_the_get_invocation_as_xml_it_can_show(client):
    browser = get(client, GET_INVOCATION, BROWSER_ACCEPT)
    soap_client = get(client, GET_INVOCATION, "application/soap+xml")

    assert result_of(browser) == 5
    assert browser["Content-Type"] == "application/xml; charset=utf-8"
    assert "Content-Disposition" not in browser
    assert browser.content == soap_client.content
    assert "Accept" in browser["Vary"]


@pytest.mark.parametrize(
    "accept", [None, "*/*", "application/soap+xml", "application/soap+xml, application/xml"]
)
def test_soap_clients_keep_application_soap_xml_on_the_get_invocation(client, accept):
    response = get(client, GET_INVOCATION, accept)

    assert result_of(response) == 5
    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"


def test_a_client_asking_for_application_xml_only_is_answered_in_it(client):
    response = get(client, GET_INVOCATION, "application/xml")

    assert result_of(response) == 5
    assert response["Content-Type"] == "application/xml; charset=utf-8"


def test_a_browser_sees_a_get_fault_as_xml_too(client):
    response = get(client, f"{ENDPOINT}?FirstValue=x&SecondValue=3", BROWSER_ACCEPT)

    assert response.status_code == 400
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    # The same SOAP 1.2 fault a SOAP client gets, only labelled for the browser.
    soap_client = get(client, f"{ENDPOINT}?FirstValue=x&SecondValue=3", "application/soap+xml")
    assert fault_of(soap_client).code == "Sender"
    assert response.content == soap_client.content


def test_posts_are_not_negotiated(client):
    response = client.post(
        ENDPOINT,
        b"<not-soap/>",
        content_type="application/soap+xml; charset=utf-8",
        headers={"Accept": BROWSER_ACCEPT},
    )

    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"
