"""Editors manage every blog's webhooks here; the writes go through webhooks.services."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.html import format_html

from webhooks import services
from webhooks.models import ALL_EVENTS, EVENT_TYPES, Attempt, Delivery, Subscription
from webhooks.validation import validate_events, validate_target_url


class SubscriptionForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=[(ALL_EVENTS, "* (every event)"), *((t, t) for t in EVENT_TYPES)],
        widget=forms.CheckboxSelectMultiple,
        help_text="The event types sent to the URL; * sends every one, present and future.",
    )

    class Meta:
        model = Subscription
        fields = ("blog", "url", "events", "active")

    # The service's checks (webhooks.validation), so that the form says what the API would.
    def clean_url(self) -> str:
        try:
            return validate_target_url(self.cleaned_data["url"])
        except ValidationError as error:
            raise ValidationError(error.message_dict["url"]) from None

    def clean_events(self) -> list[str]:
        try:
            return validate_events(list(self.cleaned_data["events"]))
        except ValidationError as error:
            raise ValidationError(error.message_dict["events"]) from None

    def clean_blog(self):
        # The service's cap, said on the form (the service still decides, under the blog's lock).
        blog = self.cleaned_data["blog"]
        limit = settings.WEBHOOK_MAX_PER_BLOG
        if self.instance.pk is None and blog.webhooks.count() >= limit:
            raise ValidationError(
                f"This blog has {limit} webhooks, as many as it may (WEBHOOK_MAX_PER_BLOG);"
                " delete one first."
            )
        return blog


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = ("started_at", "status_code", "duration_ms", "error", "response_excerpt")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    form = SubscriptionForm
    list_display = ("id", "url", "blog", "event_list", "active", "disabled_reason", "created_at")
    list_filter = ("active", "blog")
    list_select_related = ("blog",)
    search_fields = ("url",)
    readonly_fields = ("disabled_reason", "disabled_at", "failing_since", "created_at")
    actions = ("rotate_secrets",)

    @admin.display(description="events")
    def event_list(self, subscription: Subscription) -> str:
        return ", ".join(subscription.events)

    def get_readonly_fields(self, request: HttpRequest, obj: Subscription | None = None):
        return ("blog", *self.readonly_fields) if obj else ()

    def get_fields(self, request: HttpRequest, obj: Subscription | None = None):
        return (*SubscriptionForm.Meta.fields, *(self.readonly_fields if obj else ()))

    def save_model(self, request: HttpRequest, obj: Subscription, form, change: bool) -> None:
        data = form.cleaned_data
        values = {name: data[name] for name in ("url", "events", "active")}
        if change:
            services.subscription_update(subscription=obj, **values)
            return
        created, secret = services.subscription_create(
            blog=data["blog"], created_by=request.user, **values
        )
        obj.pk = created.pk
        self._show_secret(request, created, secret)

    def delete_model(self, request: HttpRequest, obj: Subscription) -> None:
        services.subscription_delete(subscription=obj)

    def _show_secret(self, request: HttpRequest, subscription: Subscription, secret: str) -> None:
        self.message_user(
            request,
            format_html(
                "The signing secret of {} is <code>{}</code>. Give it to the receiver now: it is"
                " not shown again.",
                subscription.url,
                secret,
            ),
            messages.WARNING,
        )

    @admin.action(
        permissions=["change"],
        description="Rotate the signing secret (the old one signs too for 24 hours)",
    )
    def rotate_secrets(self, request: HttpRequest, queryset) -> None:
        for subscription in queryset:
            rotated, secret = services.subscription_rotate_secret(subscription=subscription)
            self._show_secret(request, rotated, secret)


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "event_type",
        "event_id",
        "subscription",
        "status",
        "attempt_count",
        "next_attempt_at",
        "created_at",
    )
    list_filter = ("status", "event__type")
    list_select_related = ("event", "subscription", "subscription__blog")
    search_fields = ("event__id", "subscription__url")
    inlines = (AttemptInline,)
    actions = ("send_again",)
    fields = (
        "event",
        "subscription",
        "status",
        "attempt_count",
        "next_attempt_at",
        "retry_until",
        "completed_at",
        "last_error",
        "message",
    )
    readonly_fields = fields

    @admin.display(description="event type")
    def event_type(self, delivery: Delivery) -> str:
        return delivery.event.type

    @admin.display(description="message (JSON body)")
    def message(self, delivery: Delivery) -> str:
        return format_html("<pre>{}</pre>", services.message_body(delivery).decode())

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        # Read-only: the only change is the action, which needs the subscription's permission.
        return False

    @admin.action(description="Send the selected failed deliveries again")
    def send_again(self, request: HttpRequest, queryset) -> None:
        if not request.user.has_perm("webhooks.change_subscription"):
            self.message_user(
                request, "Sending again needs the right to change webhooks.", messages.ERROR
            )
            return
        sent, refused = 0, 0
        for delivery in queryset:
            try:
                services.delivery_redeliver(delivery=delivery)
                sent += 1
            except (services.DeliveryNotFailed, services.SubscriptionDisabled):
                refused += 1
        if sent:
            self.message_user(
                request, f"{sent} delivery(ies) will be sent again.", messages.SUCCESS
            )
        if refused:
            self.message_user(
                request,
                f"{refused} not sent again: only a failed delivery of an active webhook can be.",
                messages.WARNING,
            )
