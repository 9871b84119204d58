"""AddValues answered over SOAP 1.2 and 1.1 with raw envelopes, and the xs:int lexical space."""

from __future__ import annotations

import pytest
from lxml import etree

from tests.soap.messages import (
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


def test_soap12_request_is_answered_with_the_sum_in_soap12(client):
    response = post12(client, envelope(add_values(2, 3)))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/soap+xml; charset=utf-8"
    assert etree.QName(etree.fromstring(response.content)).namespace == SOAP12_NS
    assert result_of(response) == 5


def test_soap11_request_is_answered_with_the_sum_in_soap11(client):
    response = post11(client, envelope11(add_values(-20, 7)))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    assert etree.QName(etree.fromstring(response.content)).namespace == SOAP11_NS
    assert result_of(response) == -13


def test_response_payload_is_valid_against_the_schema_of_the_wsdl(client):
    wsdl = etree.fromstring(client.get("/soap/calculator?wsdl").content)
    schema = etree.XMLSchema(
        etree.fromstring(etree.tostring(wsdl.find(".//{http://www.w3.org/2001/XMLSchema}schema")))
    )
    root = etree.fromstring(post12(client, envelope(add_values(40, 2))).content)
    (payload,) = root.find(f"{{{SOAP12_NS}}}Body")

    schema.assertValid(etree.ElementTree(etree.fromstring(etree.tostring(payload))))


def test_matching_action_parameter_is_accepted(client):
    content_type = f'application/soap+xml; charset=utf-8; action="{action()}"'

    response = post12(client, envelope(add_values(1, 1)), content_type=content_type)

    assert result_of(response) == 2


def test_soap11_empty_soapaction_is_accepted_as_the_request_uri(client):
    response = post11(client, envelope11(add_values(1, 2)), soap_action='""')

    assert result_of(response) == 3


def test_media_type_without_charset_is_accepted(client):
    response = post12(client, envelope(add_values(1, 2)), content_type="application/soap+xml")

    assert result_of(response) == 3


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        (" +7 ", 7),
        ("007", 7),
        ("-2147483648", -2147483648),
        ("2147483647", 2147483647),
        ("\n\t7\r\n", 7),
        ("-0", 0),
        ("<![CDATA[12]]>", 12),
        ("1<!-- the schema reads the digits joined -->2", 12),
    ],
)
def test_xs_int_lexical_forms_of_the_schema_are_accepted(client, first, expected):
    response = post12(client, envelope(add_values(first, 0)))

    assert result_of(response) == expected


@pytest.mark.parametrize(
    "value",
    [
        "1.0",
        "1e3",
        "0x10",
        "1_000",
        "2147483648",
        "-2147483649",
        "",
        "   ",
        "+",
        "1 2",
        "\u0661\u0662",  # Arabic-Indic digits: int() reads them, xs:int does not
        "\uff17",  # fullwidth seven
        "NaN",
        "<Nested>1</Nested>",
    ],
)
def test_values_outside_the_xs_int_lexical_space_are_sender_faults(client, value):
    response = post12(client, envelope(add_values(value, 1)))

    assert response.status_code == 400
    fault = fault_of(response)
    assert fault.code == "Sender"
    assert "schema" in fault.reason


def test_sum_at_the_bounds_of_xs_int_is_answered(client):
    assert result_of(post12(client, envelope(add_values(2147483646, 1)))) == 2147483647
    assert result_of(post12(client, envelope(add_values(-2147483647, -1)))) == -2147483648


@pytest.mark.parametrize(
    "header_block",
    [
        '<x:Trace xmlns:x="urn:example:trace">abc</x:Trace>',
        '<x:Trace xmlns:x="urn:example:trace" env:mustUnderstand="false">abc</x:Trace>',
        '<x:Trace xmlns:x="urn:example:trace" env:mustUnderstand="0">abc</x:Trace>',
        '<x:Trace xmlns:x="urn:example:trace" env:mustUnderstand="true"'
        ' env:role="http://www.w3.org/2003/05/soap-envelope/role/none">abc</x:Trace>',
        '<x:Trace xmlns:x="urn:example:trace" env:mustUnderstand="true"'
        ' env:role="urn:example:some-other-node">abc</x:Trace>',
    ],
)
def test_header_blocks_not_aimed_at_this_node_or_optional_are_ignored(client, header_block):
    response = post12(client, envelope(add_values(2, 2), header=header_block))

    assert result_of(response) == 4


def test_soap11_header_block_for_another_actor_is_ignored(client):
    header = (
        '<x:Trace xmlns:x="urn:example:trace" env:mustUnderstand="1"'
        ' env:actor="urn:example:some-other-node">abc</x:Trace>'
    )

    response = post11(client, envelope11(add_values(2, 2), header=header))

    assert result_of(response) == 4


def test_comments_in_the_envelope_are_allowed(client):
    body = f"<!-- a comment --> {add_values(3, 4)} <!-- another -->"

    response = post12(client, envelope(body))

    assert result_of(response) == 7


def test_add_values_with_a_prefix_is_the_same_request(client):
    body = (
        f'<c:AddValues xmlns:c="{namespace()}"><c:FirstValue>5</c:FirstValue>'
        "<c:SecondValue>6</c:SecondValue></c:AddValues>"
    )

    assert result_of(post12(client, envelope(body))) == 11


def test_calculation_fault_is_not_raised_for_the_sum_of_bounds(client):
    response = post12(client, envelope(add_values(2147483647, -2147483648)))

    assert result_of(response) == -1
