"""GET on the endpoint: the SOAP-response MEP, the 414 limit, the help page and HEAD."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.soap.messages import (
    ENDPOINT,
    add_values,
    envelope,
    envelope11,
    fault_of,
    namespace,
    post12,
    result_of,
)

SOAP_ACCEPT = "application/soap+xml"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_get_invocation_answers_the_same_envelope_as_the_post(client):
    response = client.get(f"{ENDPOINT}?FirstValue=2&SecondValue=3", HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"
    assert result_of(response) == 5
    assert response.content == post12(client, envelope(add_values(2, 3))).content
    assert "Accept" in response["Vary"]


def test_get_invocation_goes_through_the_same_schema(client):
    ok = client.get(f"{ENDPOINT}?FirstValue=+007&SecondValue=-2", HTTP_ACCEPT=SOAP_ACCEPT)
    refused = client.get(f"{ENDPOINT}?FirstValue=1_000&SecondValue=1", HTTP_ACCEPT=SOAP_ACCEPT)

    assert result_of(ok) == 5
    assert refused.status_code == 400
    fault = fault_of(refused)
    assert (fault.version, fault.code) == ("1.2", "Sender")
    assert "1_000" in fault.reason


def test_get_invocation_overflow_is_a_calculation_fault(client):
    response = client.get(
        f"{ENDPOINT}?FirstValue=2147483647&SecondValue=1", HTTP_ACCEPT=SOAP_ACCEPT
    )

    assert response.status_code == 400
    fault = fault_of(response)
    (failure,) = fault.detail
    assert failure.tag == f"{{{namespace()}}}CalculationFailure"
    assert failure.get("Timestamp")


@pytest.mark.parametrize(
    "query",
    [
        "FirstValue=1",
        "SecondValue=1",
        "FirstValue=1&SecondValue=2&SecondValue=3",
        "FirstValue=1&SecondValue=2&ThirdValue=3",
        "FirstValue=%00&SecondValue=2",
        "FirstValue=&SecondValue=2",
        "FirstValue=%D9%A1&SecondValue=2",
    ],
)
def test_get_invocation_with_bad_parameters_is_a_sender_fault(client, query):
    response = client.get(f"{ENDPOINT}?{query}", HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


def test_get_invocation_accepts_a_browser_accept_header(client):
    response = client.get(f"{ENDPOINT}?FirstValue=2&SecondValue=3", HTTP_ACCEPT=BROWSER_ACCEPT)

    assert result_of(response) == 5


def test_get_invocation_that_refuses_soap_is_406(client):
    response = client.get(f"{ENDPOINT}?FirstValue=2&SecondValue=3", HTTP_ACCEPT="text/html")

    assert response.status_code == 406
    assert fault_of(response).code == "Sender"


def test_get_asking_for_soap_without_parameters_is_a_sender_fault(client):
    response = client.get(ENDPOINT, HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 400
    assert fault_of(response).code == "Sender"


def test_request_uri_past_3000_characters_is_414_with_a_sender_fault(client):
    path = f"{ENDPOINT}?FirstValue=2&SecondValue=3&pad="
    response = client.get(path + "x" * (3001 - len(path)), HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 414
    fault = fault_of(response)
    assert (fault.version, fault.code) == ("1.2", "Sender")


def test_request_uri_of_3000_characters_is_not_414(client):
    path = f"{ENDPOINT}?FirstValue=2&SecondValue=3&pad="
    response = client.get(path + "x" * (3000 - len(path)), HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 400  # the unknown parameter, not the length
    assert "pad" in fault_of(response).reason


def test_uri_length_counts_the_percent_encoded_form(client):
    # 600 non-ASCII characters are 3600 characters once percent-encoded.
    response = client.get(f"{ENDPOINT}?FirstValue=" + "é" * 600, HTTP_ACCEPT=SOAP_ACCEPT)

    assert response.status_code == 414


def test_post_with_an_overlong_uri_is_414_in_its_soap_version(client):
    response = client.post(
        f"{ENDPOINT}?{'x' * 3100}",
        envelope11(add_values(1, 2)),
        content_type="text/xml",
    )

    assert response.status_code == 414
    assert fault_of(response).version == "1.1"


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs.append(dict(attrs)["href"])


def test_browser_gets_an_html_help_page_linking_both_wsdls(client):
    response = client.get(ENDPOINT, HTTP_ACCEPT=BROWSER_ACCEPT)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    links = Links()
    links.feed(response.content.decode())
    assert {"?wsdl", "?wsdl2"} <= set(links.hrefs)
    assert "AddValues" in response.content.decode()
    assert namespace() in response.content.decode()


def test_head_answers_the_headers_of_get_without_a_body(client):
    get = client.get(f"{ENDPOINT}?wsdl")
    head = client.head(f"{ENDPOINT}?wsdl")

    assert head.status_code == 200
    assert head.content == b""
    assert head["Content-Type"] == get["Content-Type"]
    assert head["Content-Length"] == str(len(get.content))


@pytest.mark.parametrize(
    ("accept", "status"),
    [
        ("application/soap+xml; q*=bogus''x", 200),
        ("application/SOAP+xml;q=0.5", 200),
        ("application/*;q=abc, */*;q=0", 406),
        ("application/soap+xml;q=0, text/html", 406),
    ],
)
def test_accept_header_is_read_without_tripping_on_odd_values(client, accept, status):
    response = client.get(f"{ENDPOINT}?FirstValue=2&SecondValue=3", HTTP_ACCEPT=accept)

    assert response.status_code == status
    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"


def test_get_faults_are_soap12_whatever_content_type_the_get_carries(client):
    response = client.get(
        f"{ENDPOINT}?FirstValue=x&SecondValue=3",
        HTTP_ACCEPT=SOAP_ACCEPT,
        CONTENT_TYPE="text/xml",
    )

    assert response.status_code == 400
    assert fault_of(response).version == "1.2"
