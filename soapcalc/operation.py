"""The AddValues operation, from request bytes (POST) or query parameters (GET) to a response
envelope. Everything that goes wrong is raised as a SoapFault for the view to render.

Order of checks, as the SOAP processing model wants it: a well-formed and safe document, the
envelope of the version the media type named (else VersionMismatch), the action, the header
blocks that must be understood, and only then the body, validated against the WSDL's schema
before any value in it is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from lxml import etree

from soapcalc.calculator import CalculationOverflow, add_values
from soapcalc.envelopes import (
    check_must_understand,
    open_envelope,
    parse_document,
    render_result,
)
from soapcalc.faults import FaultCode, SoapFault, calculation_failure, sender_fault
from soapcalc.security import UNDERSTOOD_HEADERS, authenticate
from soapcalc.versions import SOAP11, SOAP12, SoapVersion
from soapcalc.wsdl import request_schema, soap_action

QUERY_PARAMETERS = ("FirstValue", "SecondValue")


def answer_envelope(
    *,
    body: bytes,
    version: SoapVersion,
    namespace: str,
    action: str | None,
    security_required: bool = False,
) -> bytes:
    """The response envelope for a POSTed request envelope.

    `action` is the SOAP 1.2 media type's action parameter, or the SOAP 1.1 SOAPAction header;
    None when the request had none. With `security_required` the request must carry a
    WS-Security UsernameToken; without, one that is sent is still checked.
    """
    envelope = open_envelope(parse_document(body), version)
    _check_action(version, namespace, action)
    check_must_understand(envelope.header, version, UNDERSTOOD_HEADERS)
    authenticate(envelope.header, version, required=security_required)
    payloads = list(envelope.body.iterchildren(etree.Element))
    if len(payloads) != 1:
        raise sender_fault("The Body must hold exactly one AddValues element")
    return _answer(payloads[0], version, namespace)


def answer_query(
    *, params: Mapping[str, Sequence[str]], namespace: str, security_required: bool = False
) -> bytes:
    """The SOAP 1.2 response envelope for a GET with the SOAP-response MEP.

    The query parameters become the AddValues element (the operation's IRI style), which then
    goes through exactly the same schema validation as a POSTed body. A GET has no envelope,
    so no Security header: when one is required, GET invocation is refused.
    """
    authenticate(None, SOAP12, required=security_required)
    unknown = sorted(set(params) - set(QUERY_PARAMETERS))
    if unknown:
        raise sender_fault(f"Unknown query parameters: {', '.join(unknown)}")
    request = etree.Element(f"{{{namespace}}}AddValues")
    for name in QUERY_PARAMETERS:
        values = params.get(name, ())
        if len(values) > 1:
            raise sender_fault(f"{name} must be given once, not {len(values)} times")
        if values:
            try:
                etree.SubElement(request, f"{{{namespace}}}{name}").text = values[0]
            except ValueError:
                raise sender_fault(f"{name} holds characters XML cannot carry") from None
    return _answer(request, SOAP12, namespace)


def _check_action(version: SoapVersion, namespace: str, action: str | None) -> None:
    expected = soap_action(namespace)
    if version is SOAP11:
        # SOAP 1.1, 6.1.1: the header is required; "" means "the request URI says it all".
        if action is None:
            raise sender_fault(f'A SOAP 1.1 request needs a SOAPAction header: "{expected}"')
        action = action.strip()
        if len(action) >= 2 and action[0] == action[-1] == '"':
            action = action[1:-1]
        if action == "":
            return
    if action is not None and action != expected:
        raise sender_fault(f"The action {action!r} is not this operation's ({expected})")


def _answer(request: etree._Element, version: SoapVersion, namespace: str) -> bytes:
    """The response to an AddValues element, validated against the schema before it is read."""
    schema = request_schema(namespace)
    if not schema.validate(request):
        error = schema.error_log.last_error
        problem = error.message if error is not None else "it is not valid"
        raise sender_fault(f"The request does not match the schema: {problem}")
    if request.tag != f"{{{namespace}}}AddValues":
        raise sender_fault("The Body must hold an AddValues element; no other operation exists")
    # Valid, so exactly FirstValue then SecondValue, each an xs:int in ASCII digits. itertext()
    # because a comment may split the digits, and the schema read them joined.
    first, second = (
        int("".join(child.itertext())) for child in request.iterchildren(etree.Element)
    )
    try:
        result = add_values(first=first, second=second)
    except CalculationOverflow as overflow:
        detail = calculation_failure(
            namespace=namespace,
            error_code=overflow.error_code,
            reason=str(overflow),
            timestamp=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        )
        # The WSDL 2.0 binding maps CalculationFault to soap:Sender: the values were the client's.
        raise SoapFault(FaultCode.SENDER, f"CalculationFault: {overflow}", detail=detail) from None
    return render_result(version, namespace, result)
