from __future__ import annotations

from functools import partial

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from simple_history.admin import SimpleHistoryAdmin

from articles import content as article_content
from articles import services
from articles.exceptions import ArticleError
from articles.models import Article, ArticleRevision, Comment
from articles.signals import announce
from core import representations


class DeletedFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return (("live", "Published"), ("deleted", "Deleted (answers 410)"))

    def queryset(self, request, queryset):
        if self.value() == "live":
            return queryset.live()
        if self.value() == "deleted":
            return queryset.deleted()
        return queryset


class ArticleForm(forms.ModelForm):
    class Meta:
        model = Article
        fields = ("blog", "title", "content")

    def clean(self):
        cleaned = super().clean()
        blog = self.instance.blog if self.instance.pk else cleaned.get("blog")
        if blog is not None and blog.archived:
            raise ValidationError("The blog is archived: unarchive it before changing articles.")
        if self.instance.pk and self.instance.locked:
            raise ValidationError("The article is locked: unlock it before changing it.")
        if self.instance.pk and self.instance.is_deleted:
            raise ValidationError("The article was deleted and cannot be changed.")
        article_content.content_validate(cleaned.get("content"), self.instance.content_format)
        return cleaned


@admin.register(Article)
class ArticleAdmin(SimpleHistoryAdmin):
    """Articles, with their history (simple-history's pages): each row is a revision, the state
    a replace replaced, with who replaced it, when, and what the replace changed; opening one
    offers to revert to it, which saves through save_model like any edit (a replace, which
    keeps the state it replaces as a revision in turn)."""

    form = ArticleForm
    list_display = ("id", "title", "blog", "locked", "is_deleted", "version", "updated_at")
    list_filter = ("blog", "locked", DeletedFilter)
    list_select_related = ("blog",)
    search_fields = ("title", "content")
    readonly_fields = ("version", "created_at", "updated_at", "deleted_at")
    fields = ("blog", "title", "content", "locked", *readonly_fields)
    actions = ("lock_articles", "unlock_articles", "delete_articles")
    history_list_display = ("revision",)

    @admin.display(boolean=True, description="deleted")
    def is_deleted(self, article: Article) -> bool:
        return article.is_deleted

    def get_readonly_fields(self, request: HttpRequest, obj: Article | None = None):
        if obj is not None:
            # An article stays in its blog; the lock is set with the actions.
            return ("blog", "locked", *self.readonly_fields)
        return self.readonly_fields

    def get_actions(self, request: HttpRequest):
        actions = super().get_actions(request)
        # Deleting leaves a tombstone (410 Gone); Django's own bulk delete would erase the row.
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request: HttpRequest, obj: Article | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not (obj and obj.is_deleted)

    def get_history_queryset(self, request: HttpRequest, history_manager, pk_name, object_id):
        # By revision number, newest first (set_history_delta_changes relies on the order).
        return (
            super()
            .get_history_queryset(request, history_manager, pk_name, object_id)
            .order_by("-version")
        )

    @admin.display(description="revision")
    def revision(self, record: ArticleRevision) -> int:
        return record.version

    def set_history_delta_changes(self, request: HttpRequest, historical_records, **kwargs):
        """What each replace changed: a revision against the state that followed it (the next
        revision, or the article as it is now). simple-history's own compares a record with
        the one before it: its records are states as written, these are states as replaced."""
        records = list(historical_records)
        if not records:
            return
        following = (
            ArticleRevision.objects.filter(id=records[0].id, version__gt=records[0].version)
            .order_by("version")
            .first()
        )
        if following is None:
            current = Article.objects.get(pk=records[0].id)
            following = ArticleRevision(id=current.pk, title=current.title, content=current.content)
        for record in records:
            delta = following.diff_against(record, included_fields=["title", "content"])
            helper = self.get_historical_record_context_helper(request, record)
            record.history_delta_changes = helper.context_for_delta_changes(delta)
            following = record

    def save_model(self, request: HttpRequest, obj: Article, form, change: bool) -> None:
        # Every write goes through the same services as the API: versions, counts, rules.
        try:
            if change:
                # The article as stored: the form changed `obj`, and a revert's `obj` is the
                # revision's state; the replace keeps the stored state as a revision.
                stored = Article.objects.select_related("blog").get(pk=obj.pk)
                saved = services.article_replace(
                    article=stored,
                    title=obj.title,
                    content=obj.content or None,
                    actor=request.user,
                )
            else:
                saved = services.article_create(
                    blog=obj.blog, title=obj.title, content=obj.content or None, actor=request.user
                )
        except ArticleError as error:
            # The form checked these; only a concurrent change of the blog or article lands here.
            raise PermissionDenied(str(error)) from error
        obj.pk = saved.pk

    def delete_model(self, request: HttpRequest, obj: Article) -> None:
        services.article_delete(article=obj, actor=request.user)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context=None):
        # A locked article, or one of an archived blog, cannot be deleted: the service refuses
        # (inside the view's transaction, which rolls back), and the editor is told why.
        try:
            return super().delete_view(request, object_id, extra_context)
        except ArticleError as error:
            self.message_user(request, f"The article was not deleted: {error}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:articles_article_change", args=[object_id]))

    def _apply(self, request: HttpRequest, queryset, write, done: str) -> None:
        done_count, refused = 0, []
        for article in queryset:
            try:
                write(article=article)
                done_count += 1
            except ArticleError as error:
                refused.append(f"“{article}”: {error}")
        if done_count:
            self.message_user(request, f"{done_count} article(s) {done}.", messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.WARNING)

    @admin.action(description="Lock the selected articles (no API changes or deletes)")
    def lock_articles(self, request: HttpRequest, queryset) -> None:
        self._apply(request, queryset, services.article_lock, "locked")

    @admin.action(description="Unlock the selected articles")
    def unlock_articles(self, request: HttpRequest, queryset) -> None:
        self._apply(request, queryset, services.article_unlock, "unlocked")

    @admin.action(permissions=["delete"], description="Delete the selected articles (410 Gone)")
    def delete_articles(self, request: HttpRequest, queryset) -> None:
        self._apply(
            request,
            queryset.live(),
            partial(services.article_delete, actor=request.user),
            "deleted",
        )


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("id", "excerpt", "article", "author", "created_at")
    list_select_related = ("article", "author")
    search_fields = ("text", "author__username")
    raw_id_fields = ("article",)
    readonly_fields = ("created_at", "updated_at")

    @admin.display(description="text")
    def excerpt(self, comment: Comment) -> str:
        return comment.text[:80]

    # The comments of the articles concerned are renewed (core.representations) as by the
    # services: an edit may also move a comment to another article.
    def save_model(self, request: HttpRequest, obj: Comment, form, change: bool) -> None:
        articles = {obj.article_id}
        if change and "article" in form.changed_data:
            articles.add(form.initial["article"])
        representations.changed(map(representations.article_comments_generation, articles))
        super().save_model(request, obj, form, change)

    def delete_model(self, request: HttpRequest, obj: Comment) -> None:
        _deleting([obj])
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        _deleting(list(queryset.select_related("article__blog")))
        super().delete_queryset(request, queryset)


def _deleting(comments: list[Comment]) -> None:
    """Announced (articles.signals) in the admin's transaction, before the rows (and their ids)
    are gone, as services.comment_delete does for the API."""
    articles = {comment.article_id for comment in comments}
    representations.changed(map(representations.article_comments_generation, articles))
    for comment in comments:
        announce("comment.deleted", comment)
