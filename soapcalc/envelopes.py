"""Reading request envelopes safely, and writing response envelopes cheaply.

Parsing is hardened against hostile XML (docs/soap.md lists the limits): any DOCTYPE or
processing instruction is refused outright (SOAP 1.2 part 1, 5: a SOAP message has neither).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape

from lxml import etree

from soapcalc.faults import FaultCode, SoapFault, sender_fault
from soapcalc.versions import BY_ENVELOPE_NS, SoapVersion

# A real request is Envelope/Body/AddValues/FirstValue deep; header blocks get some room.
MAX_DEPTH = 32

_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})

_parsers = threading.local()


def request_parser() -> etree.XMLParser:
    # lxml parsers serialize their users with a lock; one per thread keeps threads independent.
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = etree.XMLParser(
            encoding="utf-8",  # the declared encoding is ignored: requests are UTF-8 only
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            dtd_validation=False,
            huge_tree=False,
            remove_comments=False,
            remove_pis=False,  # kept so that they can be refused, not silently dropped
            collect_ids=False,
        )
    return parser


def parse_document(body: bytes) -> etree._Element:
    """The document element of a request body, or a Sender fault saying why not."""
    if not body.strip():
        raise sender_fault("The request has no body; a SOAP envelope was expected")
    # Checked on the bytes first so that a hostile internal subset is never even parsed; UTF-8
    # is ASCII-compatible, so nothing can hide the keyword.
    if b"<!DOCTYPE" in body:
        raise sender_fault("A document type declaration (DOCTYPE) is not allowed")
    xml_parser = request_parser()
    try:
        root = etree.fromstring(body, xml_parser)
    except etree.XMLSyntaxError as error:
        errors = error.error_log.filter_from_errors()
        reason = f"The request is not well-formed XML: {_syntax_message(errors)}"
        raise sender_fault(reason) from None
    # libxml2 only logs namespace errors (an undeclared prefix, a malformed xmlns) and goes on,
    # leaving tags such as "x:H" in no namespace; such a document is not XML with namespaces.
    if errors := xml_parser.error_log.filter_from_errors():
        reason = f"The request is not namespace-well-formed XML: {_syntax_message(errors)}"
        raise sender_fault(reason)
    docinfo = root.getroottree().docinfo
    if docinfo.internalDTD is not None or docinfo.doctype:
        raise sender_fault("A document type declaration (DOCTYPE) is not allowed")
    _check_tree(root)
    return root


def _syntax_message(log: etree._ListErrorLog) -> str:
    # Only libxml2's message and position: never the "file name" part of str(error).
    if not log:
        return "unreadable document"
    entry = log[0]
    return f"{entry.message.strip()} (line {entry.line}, column {entry.column})"


def _check_tree(root: etree._Element) -> None:
    for sibling in (*root.itersiblings(preceding=True), *root.itersiblings()):
        if sibling.tag is etree.PI:
            raise _processing_instruction()
    depth = 0
    for event, _node in etree.iterwalk(root, events=("start", "end", "pi")):
        if event == "pi":
            raise _processing_instruction()
        depth += 1 if event == "start" else -1
        if depth > MAX_DEPTH:
            raise sender_fault(f"The document is nested deeper than {MAX_DEPTH} elements")


def _processing_instruction() -> SoapFault:
    return sender_fault("Processing instructions are not allowed in a SOAP message")


@dataclass(frozen=True)
class OpenedEnvelope:
    header: etree._Element | None
    body: etree._Element


def open_envelope(root: etree._Element, version: SoapVersion) -> OpenedEnvelope:
    """Check the Envelope/Header/Body structure of the version the media type named."""
    if root.tag != version.tag("Envelope"):
        if etree.QName(root).localname == "Envelope":
            other = BY_ENVELOPE_NS.get(etree.QName(root).namespace or "")
            said = f"a SOAP {other.name} envelope" if other else "an envelope in another namespace"
            raise SoapFault(
                FaultCode.VERSION_MISMATCH,
                f"The media type names SOAP {version.name} but the request is {said}",
            )
        raise sender_fault("The document element is not a SOAP Envelope")
    _refuse_text(root, "Envelope")
    children = list(root.iterchildren(etree.Element))
    header = None
    if children and children[0].tag == version.tag("Header"):
        header = children.pop(0)
        _refuse_text(header, "Header")
    if not children or children[0].tag != version.tag("Body"):
        raise sender_fault("The Envelope has no Body where one was expected")
    body = children[0]
    # SOAP 1.2 allows nothing after the Body; SOAP 1.1 (4.1.1) allows qualified trailers.
    for trailer in children[1:]:
        namespace = etree.QName(trailer).namespace
        if version.name == "1.2" or namespace in (None, version.envelope_ns):
            raise sender_fault("The Envelope has an element after its Body")
    _refuse_text(body, "Body")
    return OpenedEnvelope(header=header, body=body)


def holds_text(element: etree._Element) -> bool:
    """Whether text other than whitespace lies among the element's children."""
    texts = (element.text, *(child.tail for child in element))
    return any(text and text.strip() for text in texts)


def _refuse_text(element: etree._Element, name: str) -> None:
    if holds_text(element):
        raise sender_fault(f"The {name} holds text where only elements are allowed")


def aimed_at_us(block: etree._Element, version: SoapVersion) -> bool:
    """Whether a header block is for this node: no role (actor), or one of ours."""
    target = block.get(version.tag(version.role_attribute))
    return target is None or target.strip() in version.our_roles


def check_must_understand(
    header: etree._Element | None, version: SoapVersion, understood: frozenset[str]
) -> None:
    """SOAP 1.2 part 1, 2.6 / SOAP 1.1, 4.2.3: a block aimed at this node with mustUnderstand on
    whose Clark name is not in `understood` is a MustUnderstand fault; any other block is left to
    whoever processes it, or ignored."""
    if header is None:
        return
    must_understand = version.tag("mustUnderstand")
    not_understood = []
    for block in header.iterchildren(etree.Element):
        if etree.QName(block).namespace is None:
            raise sender_fault("Header blocks must be namespace-qualified")
        flag = block.get(must_understand, "false").strip()
        if flag in _FALSE:
            continue
        if flag not in _TRUE:
            raise sender_fault(f"mustUnderstand must be true, false, 1 or 0, not {flag!r}")
        if block.tag not in understood and aimed_at_us(block, version):
            not_understood.append(block.tag)
    if not_understood:
        names = ", ".join(etree.QName(tag).localname for tag in not_understood)
        raise SoapFault(
            FaultCode.MUST_UNDERSTAND,
            f"Header blocks not understood: {names}",
            not_understood=tuple(not_understood),
        )


@lru_cache(maxsize=16)
def result_template(version: SoapVersion, namespace: str) -> tuple[bytes, bytes]:
    """The response envelope around the Result value, built once per version and namespace.

    The only variable part of a success response is an integer, so two byte strings and a join
    are all the hot path needs.
    """
    envelope_ns = escape(version.envelope_ns, {'"': "&quot;"})
    ns = escape(namespace, {'"': "&quot;"})
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<env:Envelope xmlns:env="{envelope_ns}"><env:Body>'
        f'<tns:AddValuesResponse xmlns:tns="{ns}"><tns:Result>'
    )
    tail = "</tns:Result></tns:AddValuesResponse></env:Body></env:Envelope>"
    return head.encode("utf-8"), tail.encode("utf-8")


def render_result(version: SoapVersion, namespace: str, result: int) -> bytes:
    head, tail = result_template(version, namespace)
    return b"%b%d%b" % (head, result, tail)
