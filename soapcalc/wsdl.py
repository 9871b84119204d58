"""The two shipped service descriptions, and the request schema taken from them.

The WSDL files under soapcalc/wsdl/ are the single source of truth: they are templated only for
the namespace, the endpoint address and whether the WS-Security policy is optional, and the XSD
inside the WSDL 1.1 types is the schema every request is validated against. Everything here is
cached per namespace, so that a changed SOAP_NAMESPACE (another deployment, or override_settings
in a test) gets its own schema.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path
from string import Template
from xml.sax.saxutils import escape

from lxml import etree

WSDL_DIR = Path(__file__).resolve().parent / "wsdl"
WSDL11_NS = "http://schemas.xmlsoap.org/wsdl/"
XSD_NS = "http://www.w3.org/2001/XMLSchema"

# Read once at import: the files never change while the process runs.
_TEMPLATES = {
    "wsdl": Template((WSDL_DIR / "calculator.wsdl").read_text(encoding="utf-8")),
    "wsdl2": Template((WSDL_DIR / "calculator.wsdl2").read_text(encoding="utf-8")),
}
# Only used to render the description the schema is taken from; the address never reaches it.
_SCHEMA_ADDRESS = "http://localhost/soap/calculator"

_ATTRIBUTE_ENTITIES = {'"': "&quot;", "'": "&apos;"}
# An absolute URI: a scheme, then only characters RFC 3986 allows (percent-escapes included).
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


class ServiceMisconfigured(Exception):
    """The namespace setting cannot make a usable description: a Receiver fault."""


def soap_action(namespace: str) -> str:
    return f"{namespace}/AddValuesMessage"


@lru_cache(maxsize=64)
def render_description(
    kind: str, namespace: str, address: str, security_required: bool = False
) -> bytes:
    """The WSDL 1.1 (`kind="wsdl"`) or WSDL 2.0 (`kind="wsdl2"`) document, UTF-8 encoded.

    The UsernameToken policy is marked wsp:Optional (WS-Policy 1.5, 4.3.1: an alternative with
    and one without it) unless the service requires the token (SOAP_WSSE_REQUIRED).
    """
    # The namespace lands in xmlns declarations, which libxml2 insists be URIs (RFC 3986); a
    # value that is not one must stop the process at start-up, not break every request.
    if not _URI.fullmatch(namespace):
        raise ServiceMisconfigured(
            "SOAP_NAMESPACE must be an absolute URI, such as urn:x or http://..."
        )
    text = _TEMPLATES[kind].substitute(
        namespace=escape(namespace, _ATTRIBUTE_ENTITIES),
        address=escape(address, _ATTRIBUTE_ENTITIES),
        optional="" if security_required else ' wsp:Optional="true"',
    )
    return text.encode("utf-8")


@lru_cache(maxsize=16)
def schema_document(namespace: str) -> etree._ElementTree:
    """The xs:schema of the WSDL 1.1 types, as a standalone document."""
    try:
        wsdl = etree.fromstring(
            render_description("wsdl", namespace, _SCHEMA_ADDRESS),
            etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False),
        )
    except etree.XMLSyntaxError as error:
        raise ServiceMisconfigured("the WSDL is not well-formed for this namespace") from error
    schemas = wsdl.findall(f"{{{WSDL11_NS}}}types/{{{XSD_NS}}}schema")
    if len(schemas) != 1:
        raise ServiceMisconfigured("the WSDL must carry exactly one schema in its types")
    return etree.ElementTree(etree.fromstring(etree.tostring(schemas[0])))


_compiled = threading.local()


def request_schema(namespace: str) -> etree.XMLSchema:
    """The compiled schema for this namespace, compiled once per thread.

    One compiled schema per thread because an XMLSchema object keeps the error log of its last
    validation on itself; sharing one between threads would mix up the reasons of two faults.
    """
    schemas = getattr(_compiled, "by_namespace", None)
    if schemas is None:
        schemas = _compiled.by_namespace = {}
    schema = schemas.get(namespace)
    if schema is None:
        try:
            schema = etree.XMLSchema(schema_document(namespace))
        except etree.XMLSchemaParseError as error:
            raise ServiceMisconfigured("the request schema does not compile") from error
        schemas[namespace] = schema
    return schema
