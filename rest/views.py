"""The base of every REST resource: media types, token authentication, rate limits, problems."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpResponse
from rest_framework.exceptions import MethodNotAllowed, ParseError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from rest.authentication import AccessTokenAuthentication
from rest.conditional import tag_variant
from rest.exceptions import ServiceUnavailable, UnprocessableContent
from rest.negotiation import (
    BrowsableHalRenderer,
    HalFormsRenderer,
    HalJsonRenderer,
    MediaTypeVersioning,
    StrictContentNegotiation,
    StrictHalJsonParser,
    StrictJsonParser,
)
from rest.permissions import EveryMethodNeedsToken, WritesNeedToken
from rest.throttling import ReadRateThrottle, WriteRateThrottle


class ApiView(APIView):
    renderer_classes = [HalJsonRenderer, JSONRenderer, HalFormsRenderer, BrowsableHalRenderer]
    parser_classes = [StrictJsonParser, StrictHalJsonParser]
    authentication_classes = [AccessTokenAuthentication]
    permission_classes = [WritesNeedToken]
    throttle_classes = [ReadRateThrottle, WriteRateThrottle]
    versioning_class = MediaTypeVersioning
    content_negotiation_class = StrictContentNegotiation

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if settings.MAINTENANCE_MODE:
            raise ServiceUnavailable("The service is in maintenance; retry later.", 60)
        # A method the resource does not offer is 405 whoever asks: checked before the token,
        # which DRF would otherwise demand first (401) for a method that is not there at all.
        if not hasattr(self, request.method.lower()):
            raise MethodNotAllowed(request.method)
        super().initial(request, *args, **kwargs)

    def finalize_response(
        self, request: Request, response: HttpResponse, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        response = super().finalize_response(request, response, *args, **kwargs)
        tag_variant(request, response)
        return response


class TokenOnlyView(ApiView):
    """A resource of a blog's authors only (webhooks, drafts): every method needs the token
    (401); the view then checks authorship (403)."""

    permission_classes = [EveryMethodNeedsToken]

    def perform_authentication(self, request: Request) -> None:
        """The API's token authentication, which leaves reads alone, and then for a read the
        same token check (an unknown token is 401 here too)."""
        super().perform_authentication(request)
        if request.auth is None and request.method in SAFE_METHODS:
            authenticated = AccessTokenAuthentication().authenticate_token(request)
            if authenticated is not None:
                request.user, request.auth = authenticated


def json_object(request: Request) -> dict[str, Any]:
    """The request's body, which must be a JSON object: an empty body is malformed (400), not an
    object without fields (which would be a 422 for the missing ones)."""
    if not request.META.get("CONTENT_LENGTH", "0").strip("0"):
        raise ParseError("The body is empty; send a JSON object.")
    if not isinstance(request.data, dict):
        raise ParseError("The body must be a JSON object.")
    return request.data


def valid_body(
    serializer_class: type[Serializer], request: Request, *, partial: bool = False
) -> dict[str, Any]:
    """The request's JSON object as `serializer_class` validates it (400 or 422 otherwise)."""
    serializer = serializer_class(data=json_object(request), partial=partial)
    if not serializer.is_valid():
        raise UnprocessableContent(serializer.errors)
    return serializer.validated_data
