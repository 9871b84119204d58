"""A blog's webhooks and their deliveries, for its authors only, reads included
(docs/decisions/webhooks-authors-only.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response

from articles.api.lookups import get_blog_to_write
from blogs.models import Blog
from rest.exceptions import UnprocessableContent
from rest.links import api_url
from rest.openapi import PAGE_PARAMETERS, token_operation
from rest.paging import page_body, page_params
from rest.throttling import ReadRateThrottle, WebhookWriteRateThrottle, WriteRateThrottle
from rest.views import TokenOnlyView, valid_body
from webhooks import selectors, services
from webhooks.api.serializers import (
    DeliveryPageSerializer,
    DeliverySerializer,
    SubscriptionInputSerializer,
    WebhookPageSerializer,
    WebhookSerializer,
    WebhookWithSecretSerializer,
)
from webhooks.models import Delivery, Subscription


def _operation(
    operation_id: str,
    summary: str,
    description: str,
    *,
    write: bool = True,
    meanings: dict[int, str] | None = None,
    **options: Any,
) -> Any:
    """Every webhook operation needs the token (401) and authorship of the blog (403); its
    writes count against a limit of their own too (429, RATE_LIMIT_WEBHOOK_WRITE)."""
    meanings = dict(meanings or {})
    if write:
        meanings[429] = (
            "Over the write limit, or over the smaller limit of webhook writes"
            " (RATE_LIMIT_WEBHOOK_WRITE); RateLimit-Policy names the one (Retry-After, RateLimit)."
        )
    return token_operation(
        "webhooks", operation_id, summary, description, write=write, meanings=meanings, **options
    )


class WebhookApiView(TokenOnlyView):
    throttle_classes = [ReadRateThrottle, WriteRateThrottle, WebhookWriteRateThrottle]

    def blog(self, request: Request, blog_id: int) -> Blog:
        blog = get_blog_to_write(request, blog_id)
        if not blog.is_author(request.user):
            raise exceptions.PermissionDenied("Only the blog's authors manage its webhooks.")
        return blog

    def subscription(self, request: Request, blog_id: int, webhook_id: int) -> Subscription:
        blog = self.blog(request, blog_id)
        subscription = get_object_or_404(Subscription, pk=webhook_id, blog_id=blog.pk)
        subscription.blog = blog
        return subscription


def _write(request: Request, service: Callable[..., Any], *, partial: bool, **kwargs: Any) -> Any:
    """`service` with the body's values; what either the body or the service refuses is a 422."""
    values = valid_body(SubscriptionInputSerializer, request, partial=partial)
    try:
        return service(**kwargs, **values)
    except ValidationError as error:
        raise UnprocessableContent(error.message_dict) from None


class WebhookListView(WebhookApiView):
    @_operation(
        "webhooks_list",
        "A page of a blog's webhooks",
        "The blog's webhook subscriptions, a page at a time, oldest first. Only the blog's"
        " authors see them (403 for anyone else); the token is needed for this read too.",
        responses={200: WebhookPageSerializer},
        parameters=PAGE_PARAMETERS,
        write=False,
    )
    def get(self, request: Request, blog_id: int) -> Response:
        paging = page_params(request)
        blog = self.blog(request, blog_id)
        page = selectors.subscription_page(blog.pk, *paging)
        url = api_url(request, "webhooks", blog_id=blog.pk)
        return Response(page_body(request, WebhookPageSerializer, page, collection_url=url))

    @_operation(
        "webhook_create",
        "Subscribe to a blog's events",
        "Creates a webhook: `url` (http or https) receives a signed POST for each event in"
        " `events` (`article.created`, `article.replaced`, `article.deleted`,"
        " `article.published`, `comment.created`, `comment.deleted`, or `*` for all). Answers"
        " 201 with `Location` and the signing `secret` (`whsec_...`), which is shown this once."
        " docs/webhooks.md says how to verify."
        " A blog has at most `WEBHOOK_MAX_PER_BLOG` webhooks (20 unless configured), active or"
        " not: 409 when it has them all.",
        request=SubscriptionInputSerializer,
        responses={201: WebhookWithSecretSerializer},
        errors=(409,),
        meanings={409: "The blog has as many webhooks as it may (WEBHOOK_MAX_PER_BLOG)."},
    )
    def post(self, request: Request, blog_id: int) -> Response:
        blog = self.blog(request, blog_id)
        subscription, _ = _write(
            request, services.subscription_create, partial=False, blog=blog, created_by=request.user
        )
        data = WebhookWithSecretSerializer(subscription, context={"request": request}).data
        headers = {"Location": data["_links"]["self"]["href"], "Cache-Control": "no-store"}
        return Response(data, status=201, headers=headers)


class WebhookView(WebhookApiView):
    @_operation(
        "webhook_read",
        "A webhook",
        "The subscription: its URL, events, whether it is active and, when the service turned"
        " it off, why (`disabledReason`). The secret is never shown again.",
        responses={200: WebhookSerializer},
        write=False,
    )
    def get(self, request: Request, blog_id: int, webhook_id: int) -> Response:
        subscription = self.subscription(request, blog_id, webhook_id)
        return Response(WebhookSerializer(subscription, context={"request": request}).data)

    @_operation(
        "webhook_update",
        "Change a webhook",
        "Changes the fields sent (`url`, `events`, `active`); the others stay. `active: true`"
        " turns a disabled webhook on again and forgets why it was disabled.",
        request=SubscriptionInputSerializer(partial=True),
        responses={200: WebhookSerializer},
    )
    def patch(self, request: Request, blog_id: int, webhook_id: int) -> Response:
        subscription = _write(
            request,
            services.subscription_update,
            partial=True,
            subscription=self.subscription(request, blog_id, webhook_id),
        )
        return Response(WebhookSerializer(subscription, context={"request": request}).data)

    @_operation(
        "webhook_delete",
        "Delete a webhook",
        "Deletes the subscription and its deliveries; nothing more is sent to it. Answers 204.",
        responses={204: OpenApiResponse(None, "Deleted.")},
    )
    def delete(self, request: Request, blog_id: int, webhook_id: int) -> Response:
        subscription = self.subscription(request, blog_id, webhook_id)
        services.subscription_delete(subscription=subscription)
        return Response(status=204)


class RotateSecretView(WebhookApiView):
    @_operation(
        "webhook_rotate_secret",
        "Rotate a webhook's secret",
        "A new signing secret, shown this once. For 24 hours every message carries two"
        " signatures, one with each secret (`previousSecretExpiresAt`), so that the receiver"
        " can switch without losing a message.",
        responses={200: WebhookWithSecretSerializer},
    )
    def post(self, request: Request, blog_id: int, webhook_id: int) -> Response:
        subscription = self.subscription(request, blog_id, webhook_id)
        subscription, _ = services.subscription_rotate_secret(subscription=subscription)
        data = WebhookWithSecretSerializer(subscription, context={"request": request}).data
        return Response(data, headers={"Cache-Control": "no-store"})


class DeliveryListView(WebhookApiView):
    @_operation(
        "webhook_deliveries_list",
        "A page of a webhook's deliveries",
        "Every message sent or to be sent to the webhook, newest first, each with its attempts"
        " (time, HTTP status, duration, the first bytes of the answer, the error).",
        responses={200: DeliveryPageSerializer},
        parameters=PAGE_PARAMETERS,
        write=False,
    )
    def get(self, request: Request, blog_id: int, webhook_id: int) -> Response:
        paging = page_params(request)
        subscription = self.subscription(request, blog_id, webhook_id)
        page = selectors.delivery_page(subscription, *paging)
        url = api_url(request, "deliveries", blog_id=blog_id, webhook_id=webhook_id)
        return Response(page_body(request, DeliveryPageSerializer, page, collection_url=url))


def _delivery(subscription: Subscription, delivery_id: int) -> Delivery:
    delivery = get_object_or_404(
        Delivery.objects.select_related("event"), pk=delivery_id, subscription_id=subscription.pk
    )
    delivery.subscription = subscription
    return delivery


class DeliveryView(WebhookApiView):
    @_operation(
        "webhook_delivery_read",
        "A delivery",
        "One message to the webhook with its attempts; a failed one links to `doc:redeliver`.",
        responses={200: DeliverySerializer},
        write=False,
    )
    def get(self, request: Request, blog_id: int, webhook_id: int, delivery_id: int) -> Response:
        delivery = _delivery(self.subscription(request, blog_id, webhook_id), delivery_id)
        return Response(DeliverySerializer(delivery, context={"request": request}).data)


class RedeliverView(WebhookApiView):
    @_operation(
        "webhook_redeliver",
        "Send a failed delivery again",
        "Sends the same message again (the same `webhook-id`), with a new retry period. Answers"
        " 202 with the delivery, now pending; 409 unless it failed and the webhook is active.",
        responses={202: DeliverySerializer},
        errors=(409,),
        meanings={409: "The delivery did not fail, or its webhook is disabled."},
    )
    def post(self, request: Request, blog_id: int, webhook_id: int, delivery_id: int) -> Response:
        delivery = _delivery(self.subscription(request, blog_id, webhook_id), delivery_id)
        delivery = services.delivery_redeliver(delivery=delivery)
        delivery = _delivery(delivery.subscription, delivery.pk)
        return Response(DeliverySerializer(delivery, context={"request": request}).data, status=202)
