"""Drafts in the admin (issue 29, point 4), through the Django test client logged in as staff:
the list says when a scheduled draft will go out; a draft is written with tags and slug and
scheduled (the ETA message leaves after the commit); a past time is refused; publish now and
unschedule go through the scheduler's guarded transition; the change page shows a signed preview
link; a published draft is a tombstone that cannot be changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.core import signing
from django.utils import timezone
from django.utils.formats import date_format

from articles.models import Article
from drafts import tasks
from drafts.models import Draft
from drafts.services import PREVIEW_SALT

CHANGELIST = "/admin/drafts/draft/"


@pytest.fixture
def drafts_editor(db) -> User:
    user = User.objects.create_user("drafts-editor", "de@example.org", "pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=["drafts", "articles", "blogs"])
    )
    return user


@pytest.fixture
def staff_client(client, drafts_editor):
    client.force_login(drafts_editor)
    return client


# A draft's time a month ahead: scheduled, with no message yet (outside the message window).
AT = (datetime.now(UTC) + timedelta(days=30)).replace(hour=9, minute=30, second=0, microsecond=0)


def form_time(at: datetime) -> dict[str, str]:
    """The admin's split date and time fields (TIME_ZONE is UTC)."""
    return {"publish_at_0": f"{at:%Y-%m-%d}", "publish_at_1": f"{at:%H:%M:%S}"}


def soon() -> datetime:
    """A time within the message window (DRAFTS_MESSAGE_WINDOW_SECONDS, 1800 s by default)."""
    return (timezone.now() + timedelta(minutes=10)).replace(microsecond=0)


@pytest.fixture
def drafts(blog, alice):
    now = timezone.now()
    return {
        "scheduled": Draft.objects.create(blog=blog, author=alice, title="Monday", publish_at=AT),
        "plain": Draft.objects.create(blog=blog, author=alice, title="Someday"),
        "published": Draft.objects.create(
            blog=blog, author=alice, title="Already out", published_at=now
        ),
    }


def action(client, name: str, *drafts: Draft):
    return client.post(
        CHANGELIST,
        {"action": name, "_selected_action": [d.pk for d in drafts], "index": 0},
        follow=True,
    )


@pytest.mark.parametrize(
    "path",
    [
        CHANGELIST,
        CHANGELIST + "?state=scheduled",
        CHANGELIST + "?state=published",
        CHANGELIST + "add/",
        CHANGELIST + "{scheduled}/change/",
        CHANGELIST + "{published}/change/",
    ],
)
def test_every_draft_page_renders_for_staff(staff_client, drafts, path):
    response = staff_client.get(path.format(**{k: d.pk for k, d in drafts.items()}))
    assert response.status_code == 200


def test_the_list_says_when_a_scheduled_draft_will_go_out_and_each_ones_state(staff_client, drafts):
    page = staff_client.get(CHANGELIST).content.decode()
    assert f"will go out at {date_format(AT, 'DATETIME_FORMAT')}" in page
    assert page.count("will go out at") == 1
    for state in ("scheduled", "draft", "published"):
        assert f'<td class="field-state">{state}</td>' in page

    scheduled_only = staff_client.get(CHANGELIST + "?state=scheduled").content.decode()
    assert "Monday" in scheduled_only
    assert "Someday" not in scheduled_only


def test_a_draft_written_in_the_admin_with_a_time_is_scheduled_after_the_commit(
    staff_client, blog, sent, django_capture_on_commit_callbacks
):
    at = soon()
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            CHANGELIST + "add/",
            {
                "blog": blog.pk,
                "title": "Launch day",
                "content": "# Hello",
                "content_format": "markdown",
                "tags": "news, launch, news",
                "slug": "launch-day",
                **form_time(at),
            },
        )
    assert response.status_code == 302, response.content.decode()[-2000:]
    draft = Draft.objects.get(title="Launch day")
    assert draft.tags == ["news", "launch"]
    assert (draft.slug, draft.content_format, draft.publish_at) == ("launch-day", "markdown", at)
    assert draft.author.username == "drafts-editor"
    [(name, calls, countdown)] = sent
    assert (name, calls) == ("drafts.publish_scheduled", [(draft.pk, at.isoformat())])
    assert countdown > 0


def test_a_time_beyond_the_message_window_is_scheduled_without_a_message(
    staff_client, blog, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            CHANGELIST + "add/",
            {"blog": blog.pk, "title": "Next month", "content_format": "text", **form_time(AT)},
        )
    assert response.status_code == 302, response.content.decode()[-2000:]
    draft = Draft.objects.get(title="Next month")
    assert (draft.publish_at, draft.queued_for) == (AT, None)
    assert sent == []  # the sweep sends it when the time comes within the window


@pytest.mark.parametrize("days", [400, 3000])
def test_a_time_beyond_the_horizon_is_refused(staff_client, drafts, sent, settings, days):
    draft = drafts["plain"]
    response = staff_client.post(
        CHANGELIST + f"{draft.pk}/change/",
        {
            "title": draft.title,
            "content_format": "text",
            "tags": "",
            **form_time(timezone.now() + timedelta(days=days)),
        },
    )
    assert response.status_code == 200
    assert "must be at most 366 days ahead" in response.content.decode()
    draft.refresh_from_db()
    assert (draft.publish_at, draft.version) == (None, 1)
    assert sent == []


def test_a_time_in_the_past_is_refused(staff_client, drafts, sent):
    draft = drafts["plain"]
    response = staff_client.post(
        CHANGELIST + f"{draft.pk}/change/",
        {
            "title": draft.title,
            "content_format": "text",
            "tags": "",
            "publish_at_0": "2020-01-01",
            "publish_at_1": "09:00:00",
        },
    )
    assert response.status_code == 200
    assert "must be in the future" in response.content.decode()
    draft.refresh_from_db()
    assert draft.publish_at is None
    assert sent == []


def test_rescheduling_moves_the_version_and_sends_a_message_for_the_new_time(
    staff_client, drafts, sent, django_capture_on_commit_callbacks
):
    draft = drafts["scheduled"]
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            CHANGELIST + f"{draft.pk}/change/",
            {
                "title": draft.title,
                "content_format": "text",
                "tags": "later",
                **form_time(soon()),
            },
        )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.version == 2
    assert draft.tags == ["later"]
    assert [calls for _, calls, _ in sent] == [[(draft.pk, draft.publish_at.isoformat())]]
    # The message sent for the old time does nothing now.
    assert tasks.publish_scheduled(draft.pk, AT.isoformat()) is False


def test_publish_now_publishes_once(staff_client, drafts, blog):
    draft = drafts["scheduled"]
    page = action(staff_client, "publish_now", draft).content.decode()
    assert "1 draft(s) published." in page
    article = Article.objects.get(blog=blog)
    assert article.title == "Monday"
    draft.refresh_from_db()
    assert draft.published_article_id == article.pk

    # Again, and the scheduler's message at its time: nothing more.
    action(staff_client, "publish_now", draft)
    assert tasks.publish_scheduled(draft.pk, AT.isoformat()) is False
    assert Article.objects.filter(blog=blog).count() == 1


def test_unschedule_takes_the_draft_off_the_schedule(staff_client, drafts):
    draft = drafts["scheduled"]
    page = action(staff_client, "unschedule", draft).content.decode()
    assert "1 draft(s) taken off the schedule." in page
    draft.refresh_from_db()
    assert (draft.publish_at, draft.published_at) == (None, None)
    assert "will go out at" not in staff_client.get(CHANGELIST).content.decode()


def test_the_change_page_shows_a_signed_preview_link(staff_client, drafts):
    draft = drafts["plain"]
    page = staff_client.get(CHANGELIST + f"{draft.pk}/change/").content.decode()
    prefix = "http://testserver/api/v1.2/previews/"
    start = page.index(f'href="{prefix}') + len('href="') + len(prefix)
    token = page[start : page.index('"', start)]
    assert signing.loads(token, salt=PREVIEW_SALT, max_age=60) == {"draft": draft.pk}
    with pytest.raises(signing.BadSignature):
        signing.loads(token[:-2] + "xx", salt=PREVIEW_SALT)


def test_a_published_draft_cannot_be_changed_or_deleted(staff_client, drafts):
    draft = drafts["published"]
    page = staff_client.get(CHANGELIST + f"{draft.pk}/change/").content.decode()
    assert 'name="_save"' not in page
    response = staff_client.post(
        CHANGELIST + f"{draft.pk}/change/", {"title": "Rewritten", "content_format": "text"}
    )
    assert response.status_code == 403
    assert staff_client.post(CHANGELIST + f"{draft.pk}/delete/", {"post": "yes"}).status_code == 403
    draft.refresh_from_db()
    assert draft.title == "Already out"


def test_deleting_a_draft_leaves_a_tombstone(staff_client, drafts):
    draft = drafts["plain"]
    response = staff_client.post(CHANGELIST + f"{draft.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.deleted_at is not None
    assert "delete_selected" not in staff_client.get(CHANGELIST).content.decode()
