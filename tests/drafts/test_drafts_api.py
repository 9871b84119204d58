"""Drafts over HTTP (docs/rest.md, "Drafts"): authors only, private, published once."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from articles import services as article_services
from articles.models import Article, ArticleRevision
from drafts.models import Draft
from tests.rest.conftest import API, body
from webhooks import services as webhook_services
from webhooks.models import Event

HAL_FORMS = "application/prs.hal-forms+json"


def drafts_url(blog) -> str:
    return f"{API}/blogs/{blog.pk}/drafts"


def create(api, blog, token, **fields):
    payload = {"title": "Tomorrow's post", "content": "Not yet", **fields}
    response = api.write("POST", drafts_url(blog), payload, token=token)
    assert response.status_code == 201, response.content
    return response


def test_the_blog_links_its_drafts(api, blog):
    links = body(api.get(f"{API}/blogs/{blog.pk}"))["_links"]
    assert links["doc:drafts"] == {
        "href": f"http://testserver{API}/blogs/{blog.pk}/drafts{{?pageIndex,pageSize}}",
        "templated": True,
    }


def test_create_read_replace_delete_with_etags(api, blog, alice_token):
    created = create(api, blog, alice_token, contentFormat="markdown", tags=["news", "news", "x"])
    draft = body(created)
    assert created["Location"] == draft["_links"]["self"]["href"]
    assert draft["contentFormat"] == "markdown"
    assert draft["tags"] == ["news", "x"]
    assert draft["publishAt"] is None
    assert "doc:article" not in draft["_links"]
    assert {"doc:publish", "doc:preview", "doc:blog"} <= set(draft["_links"])
    url = draft["_links"]["self"]["href"]

    read = api.get(url, headers={"X-Access-Token": alice_token})
    assert read.status_code == 200
    assert read["ETag"] == created["ETag"]
    assert read["Cache-Control"] == "private, no-store"
    again = api.get(url, headers={"X-Access-Token": alice_token, "If-None-Match": read["ETag"]})
    assert again.status_code == 304

    replaced = api.write(
        "PUT",
        url,
        {"title": "Better title", "content": "Now"},
        token=alice_token,
        headers={"If-Match": read["ETag"]},
    )
    assert replaced.status_code == 200
    assert body(replaced)["title"] == "Better title"
    assert body(replaced)["contentFormat"] == "text"
    assert replaced["ETag"] != read["ETag"]
    stale = api.write(
        "PUT", url, {"title": "Lost"}, token=alice_token, headers={"If-Match": read["ETag"]}
    )
    assert stale.status_code == 412
    assert Draft.objects.get().title == "Better title"

    deleted = api.write("DELETE", url, token=alice_token, headers={"If-Match": replaced["ETag"]})
    assert deleted.status_code == 204
    assert api.get(url, headers={"X-Access-Token": alice_token}).status_code == 410


def test_a_bad_body_is_422(api, blog, alice_token):
    response = api.write(
        "POST", drafts_url(blog), {"title": " ", "contentFormat": "html"}, token=alice_token
    )
    assert response.status_code == 422
    assert set(body(response)["errors"]) == {"title", "contentFormat"}


@pytest.mark.parametrize("tags", [["ok", "bad\u0007bell"], [" "], ["x" * 51]])
def test_a_draft_refuses_the_tags_an_article_refuses(api, blog, alice_token, tags):
    """A draft's fields are checked as an article's: a tag it kept could not be published."""
    response = api.write("POST", drafts_url(blog), {"title": "T", "tags": tags}, token=alice_token)
    assert response.status_code == 422
    assert set(body(response)["errors"]) == {"tags"}


def test_the_page_of_drafts_counts_open_drafts_only(api, blog, alice_token):
    first = body(create(api, blog, alice_token))
    create(api, blog, alice_token, title="Second")
    api.write("DELETE", first["_links"]["self"]["href"], token=alice_token)
    page = api.get(drafts_url(blog), headers={"X-Access-Token": alice_token})
    assert page.status_code == 200
    assert page["Cache-Control"] == "private, no-store"
    data = body(page)
    assert data["totalDrafts"] == 1
    assert [d["title"] for d in data["_embedded"]] == ["Second"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_drafts_need_the_token_of_an_author(api, blog, bob, token_for, method):
    url = drafts_url(blog)
    payload = {"title": "x"} if method == "POST" else None
    anonymous = api.write(method, url, payload) if payload else api.get(url)
    assert anonymous.status_code == 401
    other = (
        api.write(method, url, payload, token=token_for(bob))
        if payload
        else api.get(url, headers={"X-Access-Token": token_for(bob)})
    )
    assert other.status_code == 403
    assert not Draft.objects.exists()


def test_one_draft_needs_the_token_of_an_author(api, blog, bob, token_for, alice_token):
    url = body(create(api, blog, alice_token))["_links"]["self"]["href"]
    assert api.get(url).status_code == 401
    assert api.get(url, headers={"X-Access-Token": token_for(bob)}).status_code == 403
    assert api.write("DELETE", url, token=token_for(bob)).status_code == 403
    assert Draft.objects.open().count() == 1


def test_hal_forms_templates_for_create_replace_publish_and_schedule(api, blog, alice_token):
    page = api.get(drafts_url(blog), headers={"X-Access-Token": alice_token, "Accept": HAL_FORMS})
    assert body(page)["_templates"]["default"]["method"] == "POST"
    url = body(create(api, blog, alice_token))["_links"]["self"]["href"]
    templates = body(api.get(url, headers={"X-Access-Token": alice_token, "Accept": HAL_FORMS}))[
        "_templates"
    ]
    assert templates["default"]["method"] == "PUT"
    assert templates["publish"]["target"].endswith("/publish")
    assert [p["name"] for p in templates["schedule"]["properties"]] == ["publishAt"]


def test_publishing_a_new_draft_creates_the_article(api, blog, alice_token):
    draft = body(create(api, blog, alice_token))
    response = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert response.status_code == 201
    article = Article.objects.get()
    assert response["Location"] == f"http://testserver{API}/blogs/{blog.pk}/articles/{article.pk}"
    assert body(response)["title"] == "Tomorrow's post"
    assert body(response)["content"] == "Not yet"
    read = api.get(response["Location"])
    assert read.status_code == 200
    assert response["ETag"] == read["ETag"]
    # The draft is gone, and publishing it again publishes nothing.
    self_url = draft["_links"]["self"]["href"]
    assert api.get(self_url, headers={"X-Access-Token": alice_token}).status_code == 410
    again = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert again.status_code == 410
    assert Article.objects.count() == 1
    assert Draft.objects.get().published_article_id == article.pk


def test_a_published_draft_gives_its_article_its_slug_tags_format_and_safe_html(
    api, blog, alice_token
):
    draft = body(
        create(
            api,
            blog,
            alice_token,
            content="# Hello\n\n<script>alert(1)</script> *there*",
            contentFormat="markdown",
            tags=["Gardens", "Autumn"],
            slug="hello-there",
        )
    )
    published = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert published.status_code == 201
    article = body(api.get(published["Location"]))
    assert article["slug"] == "hello-there"
    assert sorted(article["tags"]) == ["Autumn", "Gardens"]
    assert article["contentFormat"] == "markdown"
    assert article["publishedAt"]
    assert "<h1>Hello</h1>" in article["contentHtml"] and "<em>there</em>" in article["contentHtml"]
    assert "<script" not in article["contentHtml"]
    by_slug = api.get(f"{API}/blogs/{blog.pk}/articles/by-slug/hello-there")
    assert (by_slug.status_code, by_slug["Location"]) == (308, published["Location"])


def test_publishing_a_draft_of_an_article_replaces_it_and_keeps_a_revision(
    api, blog, article, alice_token
):
    started = api.write(
        "POST", f"{API}/blogs/{blog.pk}/articles/{article.pk}/drafts", token=alice_token
    )
    assert started.status_code == 201
    draft = body(started)
    assert draft["_links"]["doc:article"]["href"].endswith(f"/articles/{article.pk}")
    assert draft["title"] == "First post"
    api.write(
        "PUT",
        draft["_links"]["self"]["href"],
        {"title": "Edited", "content": "New"},
        token=alice_token,
    )
    response = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert response.status_code == 200
    assert body(response)["title"] == "Edited"
    assert Article.objects.get().title == "Edited"
    assert ArticleRevision.objects.filter(id=article.pk).values_list("title", flat=True)[0] == (
        "First post"
    )
    assert Article.objects.count() == 1


def test_publishing_refuses_when_the_article_changed_since_the_draft(
    api, blog, article, alice_token
):
    draft = body(
        api.write("POST", f"{API}/blogs/{blog.pk}/articles/{article.pk}/drafts", token=alice_token)
    )
    before = api.get(f"{API}/blogs/{blog.pk}/articles/{article.pk}")["ETag"]
    changed = api.write(
        "PUT",
        f"{API}/blogs/{blog.pk}/articles/{article.pk}",
        {"title": "Someone else's edit"},
        token=alice_token,
    )
    assert changed.status_code == 200
    response = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert response.status_code == 409
    problem = body(response)
    assert problem["errors"] == {
        "draftStartedFrom": [before],
        "articleETag": [changed["ETag"]],
    }
    assert Article.objects.get().title == "Someone else's edit"
    assert Draft.objects.open().count() == 1  # nothing happened: it can be edited and retried


def test_schedule_and_unschedule(api, blog, alice_token, django_capture_on_commit_callbacks):
    draft = body(create(api, blog, alice_token))
    publish = draft["_links"]["doc:publish"]["href"]
    when = (timezone.now() + timedelta(hours=3)).replace(microsecond=0)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        scheduled = api.write("POST", publish, {"publishAt": when.isoformat()}, token=alice_token)
    assert scheduled.status_code == 202
    assert len(callbacks) == 1  # the scheduler is told after the commit
    assert body(scheduled)["publishAt"] == when.isoformat().replace("+00:00", "Z")
    assert Draft.objects.get().publish_at == when
    assert not Article.objects.exists()

    for bad in [(timezone.now() - timedelta(minutes=1)).isoformat(), "tomorrow at nine"]:
        refused = api.write("POST", publish, {"publishAt": bad}, token=alice_token)
        assert refused.status_code == 422, bad
        assert "publishAt" in body(refused)["errors"]
    assert Draft.objects.get().publish_at == when

    unscheduled = api.write("DELETE", publish, token=alice_token)
    assert unscheduled.status_code == 204
    assert Draft.objects.get().publish_at is None


@pytest.mark.parametrize(
    "when",
    [
        "9999-12-31T23:59:59Z",
        (timezone.now() + timedelta(days=367)).isoformat(),
    ],
    ids=["year-9999", "367-days-ahead"],
)
def test_a_time_beyond_the_horizon_is_refused(api, blog, alice_token, sent, when):
    draft = body(create(api, blog, alice_token))
    publish = draft["_links"]["doc:publish"]["href"]

    refused = api.write("POST", publish, {"publishAt": when}, token=alice_token)

    assert refused.status_code == 422, refused.content
    assert refused["Content-Type"] == "application/problem+json"
    assert body(refused)["errors"] == {
        "publishAt": ["The time must be at most 366 days ahead (PUBLISH_HORIZON_DAYS)."]
    }
    assert Draft.objects.get().publish_at is None
    assert sent == []


def test_a_time_within_the_horizon_is_scheduled(api, blog, alice_token, settings):
    settings.PUBLISH_HORIZON_DAYS = 30
    draft = body(create(api, blog, alice_token))
    publish = draft["_links"]["doc:publish"]["href"]
    within = timezone.now() + timedelta(days=29, hours=23)
    beyond = timezone.now() + timedelta(days=30, minutes=1)

    assert (
        api.write("POST", publish, {"publishAt": beyond.isoformat()}, token=alice_token).status_code
        == 422
    )
    assert (
        api.write("POST", publish, {"publishAt": within.isoformat()}, token=alice_token).status_code
        == 202
    )
    assert Draft.objects.get().publish_at == within


def test_a_far_schedule_sends_no_message_and_a_near_one_does(
    api, blog, alice_token, sent, django_capture_on_commit_callbacks
):
    """A worker holds an ETA message until its time, and the broker hands one held past its
    visibility timeout to another worker: only a time within the window is sent at once."""
    far = body(create(api, blog, alice_token, title="Next week"))
    near = body(create(api, blog, alice_token, title="In ten minutes"))
    far_at = (timezone.now() + timedelta(days=7)).replace(microsecond=0)
    near_at = (timezone.now() + timedelta(minutes=10)).replace(microsecond=0)

    with django_capture_on_commit_callbacks(execute=True):
        for draft, at in ((far, far_at), (near, near_at)):
            publish = draft["_links"]["doc:publish"]["href"]
            scheduled = api.write("POST", publish, {"publishAt": at.isoformat()}, token=alice_token)
            assert scheduled.status_code == 202

    [(name, calls, countdown)] = sent
    assert (name, calls) == ("drafts.publish_scheduled", [(near["id"], near_at.isoformat())])
    assert 590 < countdown <= 600
    assert Draft.objects.get(pk=far["id"]).queued_for is None
    assert Draft.objects.get(pk=near["id"]).queued_for == near_at


def preview_link(api, draft, token) -> dict:
    response = api.write("POST", draft["_links"]["doc:preview"]["href"], token=token)
    assert response.status_code == 201
    return body(response)


def test_a_preview_link_shows_the_draft_without_a_token(api, blog, alice_token):
    draft = body(create(api, blog, alice_token, content="<script>alert(1)</script>"))
    link = preview_link(api, draft, alice_token)
    expires = timezone.datetime.fromisoformat(link["expiresAt"])
    assert timedelta(hours=47) < expires - timezone.now() <= timedelta(hours=48)

    hal = api.get(link["href"])
    assert hal.status_code == 200
    assert body(hal)["title"] == "Tomorrow's post"
    assert hal["Cache-Control"] == "private, no-store"
    assert hal["X-Robots-Tag"] == "noindex"

    page = api.get(link["href"], headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    assert page["Cache-Control"] == "private, no-store"
    assert page["X-Robots-Tag"] == "noindex"
    html = page.content.decode()
    assert "<h1>Tomorrow&#x27;s post</h1>" in html
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the text, shown as text

    # It shows the draft as it is now.
    api.write("PUT", draft["_links"]["self"]["href"], {"title": "Renamed"}, token=alice_token)
    assert body(api.get(link["href"]))["title"] == "Renamed"


def test_a_markdown_draft_is_previewed_as_sanitised_html(api, blog, alice_token):
    draft = body(
        create(
            api,
            blog,
            alice_token,
            contentFormat="markdown",
            content="# Heading\n\n[x](javascript:alert(1)) *soon*",
        )
    )
    link = preview_link(api, draft, alice_token)
    page = api.get(link["href"], headers={"Accept": "text/html,application/xhtml+xml"})
    html = page.content.decode()
    assert "<h1>Heading</h1>" in html
    assert "<em>soon</em>" in html
    assert 'href="javascript:' not in html  # never a link: left as the text it was


def test_an_expired_preview_link_is_gone(api, blog, alice_token, settings):
    link = preview_link(api, body(create(api, blog, alice_token)), alice_token)
    settings.PREVIEW_LINK_HOURS = -1  # every link is now past its time
    assert api.get(link["href"]).status_code == 410


def test_a_tampered_preview_link_or_a_gone_draft_is_404(api, blog, alice_token):
    draft = body(create(api, blog, alice_token))
    link = preview_link(api, draft, alice_token)
    token = link["href"].rsplit("/", 1)[1]
    value, _, signature = token.rpartition(":")
    tampered = link["href"].replace(token, f"{value}:{signature[::-1]}")
    assert api.get(tampered).status_code == 404
    api.write("DELETE", draft["_links"]["self"]["href"], token=alice_token)
    assert api.get(link["href"]).status_code == 404


def test_drafts_are_nowhere_public(api, blog, alice_token):
    create(api, blog, alice_token, title="Secret plans", content="Secret plans")
    page = body(api.get(f"{API}/blogs/{blog.pk}/articles"))
    assert page["totalArticles"] == 0
    assert body(api.get(f"{API}/articles?q=secret"))["totalArticles"] == 0
    assert b"Secret plans" not in api.get(f"{API}/blogs/{blog.pk}/feed").content
    blog.refresh_from_db()
    assert blog.article_count == 0
    query = f'{{ blog(id: "{blog.pk}") {{ articles {{ count items {{ title }} }} }} }}'
    graphql = api.post("/graphql", json.dumps({"query": query}), content_type="application/json")
    assert graphql.status_code == 200
    assert b"Secret plans" not in graphql.content
    assert b'"count":0' in graphql.content.replace(b" ", b"")


def test_publication_is_announced_through_the_outbox(api, blog, alice_token):
    webhook_services.subscription_create(
        blog=blog, url="https://hooks.example/in", events=["article.published"]
    )
    draft = body(create(api, blog, alice_token))
    assert not Event.objects.exists()  # a draft is announced to no one
    response = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=alice_token)
    assert response.status_code == 201
    (event,) = Event.objects.all()
    assert event.type == "article.published"
    assert event.body["data"]["id"] == body(response)["id"]
    assert event.body["data"]["title"] == "Tomorrow's post"


def test_article_services_write_no_drafts(blog):
    article_services.article_create(blog=blog, title="Public")
    assert not Draft.objects.exists()
