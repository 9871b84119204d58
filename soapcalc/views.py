"""/soap/calculator: SOAP 1.2 and 1.1 by POST, SOAP 1.2 by GET, the WSDLs and a help page.

A thin adapter between Django's request and soapcalc.operation: it picks the SOAP version from
the media type, enforces the HTTP-level limits (413, 414, 415, 405, 406) and renders faults.
"""

from __future__ import annotations

import logging
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_header_parameters
from django.views.decorators.csrf import csrf_exempt

from core.negotiation import preferred
from soapcalc.faults import FaultCode, SoapFault, render_fault, sender_fault
from soapcalc.metrics import soap_fault
from soapcalc.operation import QUERY_PARAMETERS, answer_envelope, answer_query
from soapcalc.versions import BY_MEDIA_TYPE, SOAP11, SOAP12, SoapVersion
from soapcalc.wsdl import ServiceMisconfigured, render_description, request_schema, soap_action

logger = logging.getLogger(__name__)

ALLOW = "GET, HEAD, POST"
MAX_URI_CHARS = 3000
_UTF8 = frozenset({"utf-8", "utf8"})
# In the order they are looked for in the query string.
_DESCRIPTION_TYPES = {
    # The media type WSDL 2.0 registers (WSDL 2.0 part 1, appendix A).
    "wsdl2": "application/wsdl+xml",
    "wsdl": "text/xml",
}
# A browser saves application/wsdl+xml and application/soap+xml as a file (named after the
# path: "calculator") but shows XML labelled as XML (text/xml, the WSDL 1.1's type, too). A
# client whose Accept ranks application/xml above one of these gets the same bytes labelled
# application/xml (docs/soap.md, "Media types").
_SAVED_BY_BROWSERS = frozenset({"application/wsdl+xml", SOAP12.media_type})
_PLAIN_XML = "application/xml"


@csrf_exempt
def calculator(request: HttpRequest) -> HttpResponse:
    version, charset, action = _media(request.META.get("CONTENT_TYPE", ""))
    # The GET binding is SOAP 1.2 only; a POST is answered in the version its media type names.
    fault_version = version if version is not None and request.method == "POST" else SOAP12
    try:
        if _uri_length(request) > MAX_URI_CHARS:
            reason = f"The request URI is longer than {MAX_URI_CHARS} characters"
            raise sender_fault(reason, status=414)
        method = request.method
        if method == "POST":
            return _post(request, version, charset, action)
        if method == "GET":
            return _get(request)
        if method == "HEAD":
            response = _get(request)
            response["Content-Length"] = str(len(response.content))
            response.content = b""
            return response
        raise sender_fault(
            f"Method {method} is not allowed here", status=405, headers={"Allow": ALLOW}
        )
    except SoapFault as fault:
        return _fault_response(fault, fault_version)
    except ServiceMisconfigured:
        logger.exception("SOAP service misconfigured")
        fault = SoapFault(FaultCode.RECEIVER, "The service is not configured correctly")
        return _fault_response(fault, fault_version)
    except Exception:
        # A fault the client can read, and nothing about our internals in it.
        logger.exception("SOAP request failed")
        fault = SoapFault(FaultCode.RECEIVER, "The service could not process the request")
        return _fault_response(fault, fault_version)


def _post(
    request: HttpRequest, version: SoapVersion | None, charset: str | None, action: str | None
) -> HttpResponse:
    if version is None:
        raise sender_fault(
            "The media type must be application/soap+xml (SOAP 1.2) or text/xml (SOAP 1.1)",
            status=415,
        )
    if charset is not None and charset not in _UTF8:
        raise sender_fault("Only UTF-8 encoded requests are accepted", status=415)
    if version is SOAP11:
        action = request.META.get("HTTP_SOAPACTION")
    namespace = settings.SOAP_NAMESPACE
    request_schema(namespace)  # a misconfigured service says so before judging any request
    envelope = answer_envelope(
        body=_read_body(request),
        version=version,
        namespace=namespace,
        action=action,
        security_required=settings.SOAP_WSSE_REQUIRED,
    )
    return HttpResponse(envelope, content_type=version.content_type)


def _get(request: HttpRequest) -> HttpResponse:
    try:
        params = request.GET
        names = {name.lower() for name in params}
    except SuspiciousOperation:  # too many query fields
        raise sender_fault("The query string has too many fields") from None
    namespace = settings.SOAP_NAMESPACE
    request_schema(namespace)
    for kind, media_type in _DESCRIPTION_TYPES.items():
        if kind in names:
            address = request.build_absolute_uri(reverse("soap-calculator"))
            # A description is served whatever the Accept header.
            labelled = _labelled_for(request, media_type) or media_type
            response = HttpResponse(
                render_description(kind, namespace, address, settings.SOAP_WSSE_REQUIRED),
                content_type=f"{labelled}; charset=utf-8",
            )
            patch_vary_headers(response, ("Accept",))
            return response
    accept = request.META.get("HTTP_ACCEPT", "")
    if any(name in params for name in QUERY_PARAMETERS) or "application/soap+xml" in accept.lower():
        labelled = _labelled_for(request, SOAP12.media_type)
        try:
            if labelled is None:
                raise sender_fault("This operation answers application/soap+xml only", status=406)
            envelope = answer_query(
                params=dict(request.GET.lists()),
                namespace=namespace,
                security_required=settings.SOAP_WSSE_REQUIRED,
            )
            response = HttpResponse(envelope, content_type=SOAP12.content_type)
        except SoapFault as fault:
            response = _fault_response(fault, SOAP12)
        if labelled == _PLAIN_XML:
            response["Content-Type"] = f"{_PLAIN_XML}; charset=utf-8"
    else:
        context = {
            "address": request.build_absolute_uri(reverse("soap-calculator")),
            "namespace": namespace,
            "soap_action": soap_action(namespace),
            "max_body_bytes": settings.SOAP_MAX_BODY_BYTES,
        }
        response = render(request, "soapcalc/help.html", context)
    patch_vary_headers(response, ("Accept",))
    return response


def _read_body(request: HttpRequest) -> bytes:
    limit = settings.SOAP_MAX_BODY_BYTES
    too_large = f"The request body is larger than {limit} bytes"
    declared = request.META.get("CONTENT_LENGTH")
    if declared:
        try:
            length = int(declared)
        except ValueError:
            length = -1
        if length < 0:
            raise sender_fault("Content-Length is not a number of bytes")
        if length > limit:
            raise sender_fault(too_large, status=413)
    # Read one byte past the limit, whatever the header said, so that a body that is longer than
    # it claims is still caught without reading it all.
    body = request.read(limit + 1)
    if len(body) > limit:
        raise sender_fault(too_large, status=413)
    return body


@lru_cache(maxsize=64)
def _media(content_type: str) -> tuple[SoapVersion | None, str | None, str | None]:
    """(version, charset, action) named by a Content-Type; version None when it names neither."""
    try:
        media_type, params = parse_header_parameters(content_type)
    except ValueError:
        return None, None, None
    charset = params.get("charset")
    return BY_MEDIA_TYPE.get(media_type), charset and charset.lower(), params.get("action")


def _labelled_for(request: HttpRequest, media_type: str) -> str | None:
    """`media_type`, or application/xml when a browser would save the former as a file and the
    Accept header ranks the latter higher, as a browser's does (`application/xml;q=0.9,
    */*;q=0.8`); on a tie (`*/*`, no Accept) the former. None when it rules out both."""
    if media_type not in _SAVED_BY_BROWSERS:
        return media_type
    return preferred(request, [media_type, _PLAIN_XML])


def _uri_length(request: HttpRequest) -> int:
    query = request.META.get("QUERY_STRING", "")
    # The re-encoded full path is only worth computing when it could be near the limit; no
    # character grows to more than 12 once percent-encoded as UTF-8.
    if 12 * (len(request.path) + len(query)) < MAX_URI_CHARS:
        return len(request.path) + len(query) + 1
    return len(request.get_full_path())


def fault_for(request: HttpRequest, status: int, detail: str) -> HttpResponse:
    """A request error the platform finds before the view runs (core.surfaces), as a Sender
    fault in the SOAP version the request's Content-Type names."""
    return _fault_response(sender_fault(detail), BY_MEDIA_TYPE.get(request.content_type, SOAP12))


def _fault_response(fault: SoapFault, version: SoapVersion) -> HttpResponse:
    soap_fault(fault.code.value, version.name)
    response = HttpResponse(
        render_fault(fault, version),
        status=fault.http_status(version),
        content_type=version.content_type,
    )
    for name, value in fault.headers.items():
        response[name] = value
    # A SOAP 1.1 Client fault or a VersionMismatch is a 500 by protocol, not a server error:
    # core.logs.FaultsLoggedBySurface keeps it out of Django's error log (Receiver faults are
    # logged where they are caught).
    return response
