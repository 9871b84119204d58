"""How /graphql answers a request error that the platform finds before the view runs (a Host it
does not serve, a body cut short): GraphQL over HTTP's `errors` list without `data`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse

from graphapi.metrics import graphql_errors


def request_error(request: HttpRequest, status: int, detail: str) -> HttpResponse:
    graphql_errors("request")
    return JsonResponse({"errors": [{"message": detail}]}, status=status)
