from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from blogs import services
from blogs.models import AccessToken, Blog


@admin.register(Blog)
class BlogAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "archived", "article_count", "updated_at")
    list_filter = ("archived",)
    search_fields = ("title", "description")
    filter_horizontal = ("authors",)
    readonly_fields = ("article_count", "revision", "created_at", "updated_at")
    actions = ("archive_blogs", "unarchive_blogs")

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        # One blog at a time through Blog.delete, which renews the blog's representations (and
        # purges them from the edge); the queryset's own DELETE would skip it.
        for blog in queryset:
            blog.delete()

    @admin.action(description="Archive the selected blogs (read-only through the API)")
    def archive_blogs(self, request: HttpRequest, queryset) -> None:
        for blog in queryset:
            services.blog_archive(blog=blog)
        self.message_user(request, f"{queryset.count()} blog(s) archived.", messages.SUCCESS)

    @admin.action(description="Unarchive the selected blogs")
    def unarchive_blogs(self, request: HttpRequest, queryset) -> None:
        for blog in queryset:
            services.blog_unarchive(blog=blog)
        self.message_user(request, f"{queryset.count()} blog(s) unarchived.", messages.SUCCESS)


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "expires_at", "revoked", "last_used_at")
    list_filter = ("revoked",)
    search_fields = ("name", "prefix", "user__username")
    # Editors pick the user by name. The autocomplete asks the user admin, so an editor who
    # issues tokens needs "Can view user" (auth.view_user) too; seed_demo's editor has it.
    autocomplete_fields = ("user",)
    actions = ("revoke_tokens",)
    # A token's secret cannot be changed, and revoking goes through the action.
    readonly_fields = ("user", "prefix", "created_at", "revoked", "revoked_at", "last_used_at")

    def get_fields(self, request: HttpRequest, obj: AccessToken | None = None):
        if obj is None:
            return ("user", "name", "expires_at")
        return (
            "user",
            "name",
            "prefix",
            "created_at",
            "expires_at",
            "revoked",
            "revoked_at",
            "last_used_at",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: AccessToken | None = None):
        return () if obj is None else self.readonly_fields

    def save_model(self, request: HttpRequest, obj: AccessToken, form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        token, plain = services.token_issue(user=obj.user, name=obj.name, expires_at=obj.expires_at)
        obj.pk = token.pk
        # For response_add only (see there).
        request.issued_token = plain

    def response_add(self, request: HttpRequest, obj: AccessToken, post_url_continue=None):
        """The new token, shown once in the answer to the form itself: not in a message (its
        cookie is signed, not encrypted) and not in any page after it."""
        plain = getattr(request, "issued_token", None)
        if plain is None:
            return super().response_add(request, obj, post_url_continue)
        response = TemplateResponse(
            request,
            "admin/blogs/accesstoken/issued.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "token": obj,
                "plain": plain,
                "title": "Access token issued",
            },
        )
        add_never_cache_headers(response)  # Cache-Control: no-store among them
        return response

    @admin.action(description="Revoke the selected tokens (they stop working at once)")
    def revoke_tokens(self, request: HttpRequest, queryset) -> None:
        for token in queryset:
            services.token_revoke(token=token)
        self.message_user(request, f"{queryset.count()} token(s) revoked.", messages.SUCCESS)
