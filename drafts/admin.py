"""Drafts in the admin (issue 29, point 4): the editors' workflow of the API's authors. Publishing
goes through the scheduler's one guarded transition (drafts.publishing), so an editor's "publish
now" racing the scheduler publishes once."""

from __future__ import annotations

from functools import partial

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.http import HttpRequest
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html

from articles.content import content_validate
from articles.exceptions import ArticleError
from drafts import previews, publishing, scheduling
from drafts.exceptions import InvalidPublishTime
from drafts.models import Draft


class StateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return (
            ("scheduled", "Scheduled"),
            ("open", "Not scheduled"),
            ("published", "Published"),
            ("deleted", "Deleted (answers 410)"),
        )

    def queryset(self, request, queryset):
        match self.value():
            case "scheduled":
                return queryset.open().filter(publish_at__isnull=False)
            case "open":
                return queryset.open().filter(publish_at__isnull=True)
            case "published":
                return queryset.filter(published_at__isnull=False)
            case "deleted":
                return queryset.filter(deleted_at__isnull=False)
        return queryset


class DraftForm(forms.ModelForm):
    tags = forms.CharField(
        required=False, help_text="Tag names, separated by commas.", strip=True, max_length=2000
    )

    class Meta:
        model = Draft
        fields = ("blog", "article", "title", "content", "content_format", "tags", "slug")
        fields += ("publish_at",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "author" in self.fields:
            self.fields["author"].required = False
            self.fields["author"].help_text = "Empty: you."
        if self.instance.pk:
            self.initial["tags"] = ", ".join(self.instance.tags or [])

    def clean_tags(self) -> list[str]:
        names = [name.strip() for name in (self.cleaned_data["tags"] or "").split(",")]
        return list(dict.fromkeys(name for name in names if name))

    def clean_publish_at(self):
        """The API's rule (past, too far ahead), on a time the editor changed."""
        publish_at = self.cleaned_data.get("publish_at")
        if publish_at and "publish_at" in self.changed_data:
            try:
                scheduling.check_publish_time(publish_at)
            except InvalidPublishTime as error:
                raise ValidationError(str(error)) from None
        return publish_at

    def clean(self):
        cleaned = super().clean()
        blog, article = cleaned.get("blog"), cleaned.get("article")
        if blog is not None and article is not None and article.blog_id != blog.pk:
            raise ValidationError("The article the draft edits must be of the draft's blog.")
        content_validate(cleaned.get("content"), cleaned.get("content_format"))
        return cleaned


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin):
    form = DraftForm
    list_display = ("title", "blog", "author", "goes_out", "state")
    list_filter = (StateFilter, "blog")
    list_select_related = ("blog", "author")
    search_fields = ("title",)
    raw_id_fields = ("article", "author")
    readonly_fields = (
        "preview_link",
        "version",
        "created_at",
        "updated_at",
        "published_at",
        "published_article",
        "deleted_at",
    )
    fields = (
        "blog",
        "article",
        "author",
        "title",
        "content",
        "content_format",
        "tags",
        "slug",
        "publish_at",
        *readonly_fields,
    )
    actions = ("publish_now", "unschedule")

    @admin.display(description="scheduled", ordering="publish_at")
    def goes_out(self, draft: Draft) -> str:
        if draft.is_gone or draft.publish_at is None:
            return "—"
        when = date_format(timezone.localtime(draft.publish_at), "DATETIME_FORMAT")
        return f"will go out at {when}"

    @admin.display(description="state")
    def state(self, draft: Draft) -> str:
        if draft.published_at is not None:
            return "published"
        if draft.deleted_at is not None:
            return "deleted"
        return "scheduled" if draft.publish_at is not None else "draft"

    @admin.display(description="preview link")
    def preview_link(self, draft: Draft) -> str:
        if draft.pk is None or draft.is_gone:
            return "—"
        url = previews.preview_url(draft)
        return format_html('<a href="{}" rel="noreferrer" target="_blank">{}</a>', url, url)

    def get_readonly_fields(self, request: HttpRequest, obj: Draft | None = None):
        if obj is not None:
            # A draft stays in its blog and on its article.
            return ("blog", "article", *self.readonly_fields)
        return self.readonly_fields

    def has_change_permission(self, request: HttpRequest, obj: Draft | None = None) -> bool:
        # A published or deleted draft is a tombstone: it is seen, not changed.
        return super().has_change_permission(request, obj) and not (obj and obj.is_gone)

    def has_delete_permission(self, request: HttpRequest, obj: Draft | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not (obj and obj.is_gone)

    def get_actions(self, request: HttpRequest):
        actions = super().get_actions(request)
        # Deleting leaves a tombstone (410 Gone); Django's own bulk delete would erase the rows.
        actions.pop("delete_selected", None)
        return actions

    def save_model(self, request: HttpRequest, obj: Draft, form, change: bool) -> None:
        now = timezone.now()
        if obj.author_id is None:
            obj.author = request.user
        if change:
            # A changed draft is another version (its ETag in the API).
            obj.version = F("version") + 1
            obj.updated_at = now
        super().save_model(request, obj, form, change)
        obj.refresh_from_db(fields=["version"])
        if obj.publish_at is not None and "publish_at" in form.changed_data:
            transaction.on_commit(partial(scheduling.hand_over, obj.pk, obj.publish_at))

    def delete_model(self, request: HttpRequest, obj: Draft) -> None:
        Draft.objects.open().filter(pk=obj.pk).update(
            deleted_at=timezone.now(), version=F("version") + 1
        )

    @admin.action(permissions=["change"], description="Publish the selected drafts now")
    def publish_now(self, request: HttpRequest, queryset) -> None:
        done, refused = 0, []
        for draft in queryset.open():
            try:
                done += publishing.publish(draft.pk)
            except ArticleError as error:
                refused.append(f"“{draft}”: {error}")
        if done:
            self.message_user(request, f"{done} draft(s) published.", messages.SUCCESS)
        for line in refused:
            self.message_user(request, f"Not published: {line}", messages.WARNING)

    @admin.action(permissions=["change"], description="Take the selected drafts off the schedule")
    def unschedule(self, request: HttpRequest, queryset) -> None:
        done = sum(publishing.unschedule(draft.pk) for draft in queryset.open())
        self.message_user(request, f"{done} draft(s) taken off the schedule.", messages.SUCCESS)
