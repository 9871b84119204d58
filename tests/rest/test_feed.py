"""A blog's Atom feed: read by feedparser, linked from the blog, conditional like every read."""

from __future__ import annotations

import calendar

import feedparser
import pytest
from django.test import Client

from articles import services as article_services
from articles.api.feeds import FEED_ENTRIES
from blogs.models import Blog

API = "/api/v1.2"
# What a feed reader sends.
READER_ACCEPT = "application/atom+xml, application/rss+xml;q=0.9, */*;q=0.1"


@pytest.fixture
def reader() -> Client:
    return Client(headers={"Accept": READER_ACCEPT})


def feed_url(blog: Blog, prefix: str = API) -> str:
    return f"{prefix}/blogs/{blog.pk}/feed"


def read_feed(reader: Client, url: str):
    response = reader.get(url)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return response, parsed


def seconds(struct) -> int:
    return calendar.timegm(struct)


def test_the_feed_is_atom_with_the_newest_articles_first(reader, blog):
    first = article_services.article_create(blog=blog, title="First", content="One")
    second = article_services.article_create(blog=blog, title="Second", content=None)
    third = article_services.article_create(blog=blog, title="Third", content="Three")

    _, parsed = read_feed(reader, feed_url(blog))

    assert parsed.feed.title == "Alice's blog"
    assert parsed.feed.subtitle == "Notes from Alice"
    assert parsed.feed.id == f"http://testserver{API}/blogs/{blog.pk}/feed"
    assert parsed.feed.author == "Alice's blog"
    assert [e.title for e in parsed.entries] == ["Third", "Second", "First"]
    articles = [third, second, first]
    assert [e.link for e in parsed.entries] == [
        f"http://testserver{API}/blogs/{blog.pk}/articles/{a.pk}" for a in articles
    ]
    assert [e.id for e in parsed.entries] == [e.link for e in parsed.entries]
    assert [seconds(e.updated_parsed) for e in parsed.entries] == [
        int(a.updated_at.timestamp()) for a in articles
    ]
    assert [e.get("summary") for e in parsed.entries] == ["Three", None, "One"]


def test_the_feed_links_are_canonical_under_the_unversioned_prefix_too(reader, blog, article):
    _, parsed = read_feed(reader, feed_url(blog, prefix="/api"))

    links = {link.rel: link.href for link in parsed.feed.links}
    assert links == {
        "alternate": f"http://testserver{API}/blogs/{blog.pk}",
        "self": f"http://testserver{API}/blogs/{blog.pk}/feed",
    }
    assert parsed.entries[0].link == f"http://testserver{API}/blogs/{blog.pk}/articles/{article.pk}"


def test_the_blog_links_its_feed_as_an_atom_alternate(api, reader, blog, other_blog):
    body = api.get(f"{API}/blogs/{blog.pk}").json()

    assert body["_links"]["alternate"] == {
        "href": f"http://testserver{API}/blogs/{blog.pk}/feed",
        "type": "application/atom+xml",
        "title": "Alice's blog (Atom feed)",
    }
    read_feed(reader, body["_links"]["alternate"]["href"])
    page = api.get(f"{API}/blogs").json()
    assert [b["_links"]["alternate"]["href"] for b in page["_embedded"]] == [
        f"http://testserver{API}/blogs/{b.pk}/feed" for b in (blog, other_blog)
    ]


def test_the_feed_holds_only_the_newest_articles(reader, blog):
    for number in range(FEED_ENTRIES + 2):
        article_services.article_create(blog=blog, title=f"Post {number}")

    _, parsed = read_feed(reader, feed_url(blog))

    assert [e.title for e in parsed.entries] == [
        f"Post {number}" for number in reversed(range(2, FEED_ENTRIES + 2))
    ]


def test_a_deleted_article_leaves_the_feed(reader, blog):
    kept = article_services.article_create(blog=blog, title="Kept")
    gone = article_services.article_create(blog=blog, title="Gone")
    before, _ = read_feed(reader, feed_url(blog))

    article_services.article_delete(article=gone)
    after, parsed = read_feed(reader, feed_url(blog))

    assert [e.title for e in parsed.entries] == [kept.title]
    assert after["ETag"] != before["ETag"]
    blog.refresh_from_db()
    assert seconds(parsed.feed.updated_parsed) == int(blog.updated_at.timestamp())


def test_text_reads_as_written_and_long_content_is_cut(reader, blog, settings):
    settings.PAGE_CONTENT_MAX_CHARS = 20
    article_services.article_create(blog=blog, title="Tom & Jerry <3", content="<b>bold</b> & more")
    article_services.article_create(blog=blog, title="Bell\x07", content="x" * 100)

    _, parsed = read_feed(reader, feed_url(blog))

    long, marked_up = parsed.entries
    assert marked_up.title == "Tom & Jerry <3"
    # An HTML summary showing the text as written: the markup escaped, not rendered.
    assert marked_up.summary == "&lt;b&gt;bold&lt;/b&gt; &amp; more"
    # A control character, which XML 1.0 cannot carry, is replaced; the feed stays well-formed.
    assert long.title == "Bell\ufffd"
    assert long.summary == "x" * 19 + "\u2026"


def test_an_empty_blog_has_an_empty_feed_with_stable_bytes(reader, blog):
    first, parsed = read_feed(reader, feed_url(blog))
    second, _ = read_feed(reader, feed_url(blog))

    assert parsed.entries == []
    assert first.content == second.content
    assert first["ETag"] == second["ETag"]


def test_if_none_match_with_the_current_etag_is_304(reader, blog, article):
    response, _ = read_feed(reader, feed_url(blog))

    again = reader.get(feed_url(blog), headers={"If-None-Match": response["ETag"]})

    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == response["ETag"]
    assert again["Last-Modified"] == response["Last-Modified"]


def test_if_modified_since_the_last_change_is_304(reader, blog, article):
    response, _ = read_feed(reader, feed_url(blog))

    again = reader.get(feed_url(blog), headers={"If-Modified-Since": response["Last-Modified"]})

    assert again.status_code == 304


def test_if_match_with_another_etag_is_412_naming_the_precondition(reader, blog, article):
    response = reader.get(feed_url(blog), headers={"If-Match": '"not-the-current-one"'})

    assert response.status_code == 412
    assert response["Content-Type"] == "application/problem+json"
    assert "If-Match" in response.json()["detail"]


def test_atom_refused_with_q0_is_406_though_any_type_is_accepted(blog):
    accept = "application/atom+xml;q=0, application/xml;q=0, */*"
    response = Client().get(feed_url(blog), headers={"Accept": accept})

    assert response.status_code == 406


def test_a_new_article_changes_the_etag(api, reader, blog, article, alice, token_for):
    response, _ = read_feed(reader, feed_url(blog))
    created = api.write(
        "POST",
        f"{API}/blogs/{blog.pk}/articles",
        {"title": "Newer"},
        token=token_for(alice),
    )
    assert created.status_code == 201

    again = reader.get(feed_url(blog), headers={"If-None-Match": response["ETag"]})

    assert again.status_code == 200
    assert again["ETag"] != response["ETag"]
    assert feedparser.parse(again.content).entries[0].title == "Newer"


def test_head_answers_the_validators_without_a_body(reader, blog, article):
    response, _ = read_feed(reader, feed_url(blog))

    head = reader.head(feed_url(blog))

    assert head.status_code == 200
    assert head.content == b""
    assert head["ETag"] == response["ETag"]


def test_a_missing_blog_is_a_404_problem(reader, db):
    response = reader.get(f"{API}/blogs/999999/feed")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == 404


def test_an_accept_header_without_atom_is_406(blog):
    response = Client().get(feed_url(blog), headers={"Accept": "application/hal+json"})

    assert response.status_code == 406
    assert response["Content-Type"] == "application/problem+json"


def test_the_feed_is_read_only(blog, alice, token_for):
    client = Client()
    response = client.post(feed_url(blog), headers={"X-Access-Token": token_for(alice)})
    options = client.options(feed_url(blog))

    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert options.status_code == 200
    assert options["Allow"] == "GET, HEAD, OPTIONS"


def test_feedparser_fetches_the_feed_from_a_live_server_and_revalidates_it(live_server, blog):
    """feedparser as a feed reader uses it: its own HTTP request, then a conditional one with
    the ETag it was given (304 while nothing changed, the new entry once something did)."""
    article_services.article_create(blog=blog, title="Live", content="From the server")
    url = f"{live_server.url}{feed_url(blog)}"

    first = feedparser.parse(url)
    assert first.status == 200 and first.bozo == 0, first.get("bozo_exception")
    assert [entry.title for entry in first.entries] == ["Live"]
    assert first.entries[0].link == f"{live_server.url}{API}/blogs/{blog.pk}/articles/" + str(
        blog.articles.get().pk
    )

    unchanged = feedparser.parse(url, etag=first.etag)
    assert unchanged.status == 304 and unchanged.entries == []

    article_services.article_create(blog=blog, title="Later", content=None)
    changed = feedparser.parse(url, etag=first.etag)
    assert changed.status == 200
    assert [entry.title for entry in changed.entries] == ["Later", "Live"]
