"""The SOAP *limit*: AddValues as a bare lxml WSGI app, with nothing but the work itself.

It parses the envelope with the same safe parser settings the service must use (no entities,
no DTD, no network), finds the two values, adds them and serialises a SOAP 1.2 response; GET
takes the values from the query string (the SOAP-response MEP). No schema validation, no
faults beyond a bare 400: this is the ceiling a real implementation is measured against.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from urllib.parse import parse_qs

from lxml import etree

SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
NAMESPACE = os.environ.get("SOAP_NAMESPACE") or "http://example.org/calculator"
_PARSER = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False)
_FIRST = etree.QName(NAMESPACE, "FirstValue").text
_SECOND = etree.QName(NAMESPACE, "SecondValue").text
_HEADERS = "application/soap+xml; charset=utf-8"


def _envelope(result: int) -> bytes:
    envelope = etree.Element(etree.QName(SOAP12, "Envelope"), nsmap={"soap": SOAP12})
    body = etree.SubElement(envelope, etree.QName(SOAP12, "Body"))
    response = etree.SubElement(
        body, etree.QName(NAMESPACE, "AddValuesResponse"), nsmap={None: NAMESPACE}
    )
    etree.SubElement(response, etree.QName(NAMESPACE, "Result")).text = str(result)
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def _values(environ: dict) -> tuple[int, int]:
    if environ["REQUEST_METHOD"] == "GET":
        query = parse_qs(environ.get("QUERY_STRING", ""))
        return int(query["FirstValue"][0]), int(query["SecondValue"][0])
    length = int(environ.get("CONTENT_LENGTH") or 0)
    root = etree.fromstring(environ["wsgi.input"].read(length), _PARSER)
    return int(root.findtext(f".//{_FIRST}")), int(root.findtext(f".//{_SECOND}"))


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    try:
        first, second = _values(environ)
    except (KeyError, ValueError, TypeError, etree.XMLSyntaxError):
        start_response("400 Bad Request", [("Content-Length", "0")])
        return [b""]
    body = _envelope(first + second)
    start_response("200 OK", [("Content-Type", _HEADERS), ("Content-Length", str(len(body)))])
    return [body]
