"""Issue 29 (A2): an article's slug, publishedAt, tags and contentFormat over HTTP; by-slug."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from articles import services, slugs
from articles.models import Article, ArticleSlug, Tag
from tests.rest.conftest import API, body
from tests.support.queries import content_queries

ORIGIN = "http://testserver"


def articles_url(blog) -> str:
    return f"{API}/blogs/{blog.pk}/articles"


def post(api, blog, token, payload):
    return api.write("POST", articles_url(blog), payload, token=token)


def put(api, blog, article_id, token, payload):
    url = f"{articles_url(blog)}/{article_id}"
    etag = api.get(url)["ETag"]
    return api.write("PUT", url, payload, token=token, headers={"If-Match": etag})


def test_a_post_publishes_the_article_with_a_slug_from_its_title(api, blog, alice_token):
    response = post(api, blog, alice_token, {"title": "Hello, World: déjà vu!"})

    assert response.status_code == 201
    data = body(response)
    assert data["slug"] == "hello-world-deja-vu"
    assert data["contentFormat"] == "text"
    assert data["tags"] == []
    published = datetime.fromisoformat(data["publishedAt"])
    article = Article.objects.get(pk=data["id"])
    assert published == article.published_at == article.created_at
    assert body(api.get(response["Location"]))["slug"] == "hello-world-deja-vu"


def test_the_same_title_gets_the_next_free_suffix_old_slugs_included(api, blog, alice_token):
    first = body(post(api, blog, alice_token, {"title": "Weekly notes"}))
    second = body(post(api, blog, alice_token, {"title": "Weekly notes"}))
    assert (first["slug"], second["slug"]) == ("weekly-notes", "weekly-notes-2")
    # The first one moves away: its old slug stays taken (by-slug still leads to it).
    assert put(api, blog, first["id"], alice_token, {"title": "W", "slug": "w"}).status_code == 200
    third = body(post(api, blog, alice_token, {"title": "Weekly notes"}))
    assert third["slug"] == "weekly-notes-3"


def test_a_crowded_title_gets_a_random_suffix_at_the_cost_of_a_fresh_title(
    api, blog, alice_token, monkeypatch
):
    """Past "-3" a random suffix names the article, read in the same statement as the numbered
    candidates: a crowded title's POST runs exactly the statements of a fresh title's."""
    made = [body(post(api, blog, alice_token, {"title": "Daily"}))["slug"] for _ in range(3)]
    assert made == ["daily", "daily-2", "daily-3"]
    with content_queries(at_most=40) as fresh:
        post(api, blog, alice_token, {"title": "Never written before"})
    with content_queries(at_most=40) as crowded:
        first = body(post(api, blog, alice_token, {"title": "Daily"}))
    assert re.fullmatch(r"daily-[0-9a-f]{6}", first["slug"])
    assert [q["sql"].split()[0] for q in crowded.captured_queries] == [
        q["sql"].split()[0] for q in fresh.captured_queries
    ]
    # The crowded title's statements read fixed lists of slugs, never a range of them.
    assert not [q["sql"] for q in crowded.captured_queries if " LIKE " in q["sql"]]

    # Random candidates an author took already are passed over: the first free one is used.
    for taken in ("daily-aaaaaa", "daily-bbbbbb"):
        post(api, blog, alice_token, {"title": "Taken", "slug": taken})
    suffixes = iter(["aaaaaa", "bbbbbb", "cccccc", "dddddd"])
    monkeypatch.setattr(slugs.secrets, "token_hex", lambda n: next(suffixes))
    assert body(post(api, blog, alice_token, {"title": "Daily"}))["slug"] == "daily-cccccc"
    # All of one look's candidates taken (the first three): another look, with new ones.
    suffixes = iter(["aaaaaa", "bbbbbb", "cccccc", "dddddd", "eeeeee", "ffffff"])
    assert body(post(api, blog, alice_token, {"title": "Daily"}))["slug"] == "daily-dddddd"
    slugs_now = list(Article.objects.filter(blog=blog).values_list("slug", flat=True))
    assert len(slugs_now) == len(set(slugs_now))


@pytest.mark.postgres
def test_the_taken_slugs_are_read_by_the_unique_index_even_when_the_statistics_saw_the_blog_empty(
    blog, django_db_blocker
):
    """The statistics are taken while the blog is empty, then it fills (a first import): the
    candidates' statement still looks each slug up in the unique index, never reads the blog's
    articles one by one (an IN list did, 5 ms and growing with each POST, until ANALYZE)."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Article._meta.db_table}")
    Article.objects.bulk_create(
        Article(blog=blog, title=f"Imported {n}", slug=f"imported-{n}") for n in range(3000)
    )
    with CaptureQueriesContext(connection) as captured:
        slugs.slug_unique(blog_id=blog.pk, title="Imported 7")
    (statement,) = [q["sql"] for q in captured.captured_queries]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement)
        (document,) = cursor.fetchone()
    plan = json.loads(document) if isinstance(document, str) else document

    def nodes(node: dict) -> list[dict]:
        return [node, *(found for child in node.get("Plans", []) for found in nodes(child))]

    scans = [node for node in nodes(plan[0]["Plan"]) if "Relation Name" in node]
    assert len(scans) == 2 * 4  # base, -2, -3 and a random one, in both tables
    for scan in scans:
        assert scan["Node Type"] in ("Index Scan", "Index Only Scan"), scan
        assert "slug" in scan["Index Cond"], scan
        assert scan.get("Rows Removed by Filter", 0) == 0, scan


def test_a_title_without_letters_gets_a_slug_still(api, blog, alice_token):
    assert body(post(api, blog, alice_token, {"title": "日本語"}))["slug"] == "article"


def test_a_given_slug_is_kept_and_a_bad_or_taken_one_is_refused_naming_slug(api, blog, alice_token):
    given = post(api, blog, alice_token, {"title": "Anything", "slug": "my-own"})
    assert (given.status_code, body(given)["slug"]) == (201, "my-own")

    for bad in ("Upper", "with space", "-edge", "a/b"):
        refused = post(api, blog, alice_token, {"title": "X", "slug": bad})
        assert refused.status_code == 400, bad
        assert refused["Content-Type"] == "application/problem+json"
        assert "slug" in body(refused)["errors"]

    taken = post(api, blog, alice_token, {"title": "Other", "slug": "my-own"})
    assert taken.status_code == 409
    assert "slug" in body(taken)["errors"]
    assert Article.objects.filter(blog=blog).count() == 1


def test_a_put_keeps_the_slug_or_changes_it_and_by_slug_follows_old_ones(api, blog, alice_token):
    created = body(post(api, blog, alice_token, {"title": "First title"}))
    kept = put(api, blog, created["id"], alice_token, {"title": "Second title"})
    assert (kept.status_code, body(kept)["slug"]) == (200, "first-title")

    changed = put(api, blog, created["id"], alice_token, {"title": "T", "slug": "second"})
    assert (changed.status_code, body(changed)["slug"]) == (200, "second")
    assert list(ArticleSlug.objects.values_list("slug", flat=True)) == ["first-title"]

    article_url = f"{ORIGIN}{articles_url(blog)}/{created['id']}"
    for slug in ("second", "first-title"):
        found = api.get(f"{articles_url(blog)}/by-slug/{slug}")
        assert found.status_code == 308, slug
        assert found["Location"] == article_url
    assert api.get(f"{articles_url(blog)}/by-slug/nothing-here").status_code == 404
    assert api.get(f"{API}/blogs/999999/articles/by-slug/second").status_code == 404

    # Back to its old slug: current again, and no longer among the old ones.
    back = put(api, blog, created["id"], alice_token, {"title": "T", "slug": "first-title"})
    assert body(back)["slug"] == "first-title"
    assert sorted(ArticleSlug.objects.values_list("slug", flat=True)) == ["second"]


def test_by_slug_of_a_blog_id_past_any_row_is_a_404(api, db):
    # Found by the OpenAPI fuzz: such an id reached SQLite, which cannot hold it (a 500).
    assert api.get(f"{API}/blogs/{2**125}/articles/by-slug/a-slug").status_code == 404


def test_another_articles_old_slug_cannot_be_taken(api, blog, alice_token):
    one = body(post(api, blog, alice_token, {"title": "One"}))
    two = body(post(api, blog, alice_token, {"title": "Two"}))
    put(api, blog, one["id"], alice_token, {"title": "One", "slug": "uno"})

    refused = put(api, blog, two["id"], alice_token, {"title": "Two", "slug": "one"})
    assert refused.status_code == 409
    assert body(api.get(f"{articles_url(blog)}/{two['id']}"))["slug"] == "two"


def test_tags_are_set_by_name_and_kept_by_a_put_without_them(api, blog, alice_token):
    created = post(api, blog, alice_token, {"title": "Tagged", "tags": ["Python", "web", "python"]})
    assert created.status_code == 201
    data = body(created)
    assert data["tags"] == ["Python", "web"]  # one tag per slug, the first name kept
    assert sorted(Tag.objects.filter(blog=blog).values_list("slug", flat=True)) == [
        "python",
        "web",
    ]
    assert body(api.get(created["Location"]))["tags"] == ["Python", "web"]

    kept = put(api, blog, data["id"], alice_token, {"title": "Tagged again"})
    assert body(kept)["tags"] == ["Python", "web"]
    replaced = put(api, blog, data["id"], alice_token, {"title": "T", "tags": ["Django"]})
    assert body(replaced)["tags"] == ["Django"]
    assert body(api.get(created["Location"]))["tags"] == ["Django"]
    page = body(api.get(articles_url(blog)))
    assert page["_embedded"][0]["tags"] == ["Django"]


@pytest.mark.parametrize(
    "tags",
    [["x" * 51], [""], ["   "], [f"t{n}" for n in range(21)], "not-a-list", [5], ["a\u0001b"]],
)
def test_bad_tags_are_422_naming_tags(api, blog, alice_token, tags):
    response = post(api, blog, alice_token, {"title": "T", "tags": tags})
    assert response.status_code == 422
    assert "tags" in body(response)["errors"]
    assert not Article.objects.exists()


def test_content_format_is_accepted_and_kept_by_a_put_without_it(api, blog, alice_token):
    created = body(post(api, blog, alice_token, {"title": "M", "contentFormat": "markdown"}))
    assert created["contentFormat"] == "markdown"
    assert body(put(api, blog, created["id"], alice_token, {"title": "M2"}))["contentFormat"] == (
        "markdown"
    )
    bad = post(api, blog, alice_token, {"title": "M", "contentFormat": "html"})
    assert bad.status_code == 422
    assert "contentFormat" in body(bad)["errors"]


def test_the_services_take_the_contract_keywords(blog):
    article = services.article_create(
        blog=blog, title="Via service", tags=["a"], content_format="markdown", slug="svc"
    )
    assert (article.slug, article.content_format) == ("svc", "markdown")
    replaced = services.article_replace(article=article, title="Again")
    assert (replaced.slug, replaced.content_format) == ("svc", "markdown")
    assert list(replaced.tags.values_list("name", flat=True)) == ["a"]


def test_the_blogs_tags_are_a_page_with_counts_and_links_to_their_articles(
    api, blog, other_blog, alice_token
):
    post(api, blog, alice_token, {"title": "A", "tags": ["Python", "Web"]})
    post(api, blog, alice_token, {"title": "B", "tags": ["Python"]})
    gone = body(post(api, blog, alice_token, {"title": "C", "tags": ["Python", "Old"]}))
    api.write("DELETE", f"{articles_url(blog)}/{gone['id']}", token=alice_token)
    services.article_create(blog=other_blog, title="Elsewhere", tags=["Python"])

    blog_doc = body(api.get(f"{API}/blogs/{blog.pk}"))
    tags_href = blog_doc["_links"]["doc:tags"]["href"]
    assert blog_doc["_links"]["doc:tags"]["templated"] is True
    assert tags_href.endswith("/tags{?pageIndex,pageSize}")

    response = api.get(f"{API}/blogs/{blog.pk}/tags?pageSize=2")
    assert response.status_code == 200
    page = body(response)
    assert (page["totalTags"], page["totalPages"]) == (3, 2)
    items = page["_embedded"]
    assert [(t["name"], t["slug"], t["articleCount"]) for t in items] == [
        ("Old", "old", 0),
        ("Python", "python", 2),
    ]
    python = items[1]
    assert python["_links"]["self"]["href"] == f"{ORIGIN}{API}/blogs/{blog.pk}/tags/python"
    again = api.get(
        f"{API}/blogs/{blog.pk}/tags?pageSize=2", headers={"If-None-Match": response["ETag"]}
    )
    assert again.status_code == 304

    one = api.get(python["_links"]["self"]["href"])
    assert (one.status_code, body(one)["articleCount"]) == (200, 2)
    assert api.get(f"{API}/blogs/{blog.pk}/tags/nope").status_code == 404
    assert api.get(f"{API}/blogs/999999/tags").status_code == 404

    tagged = body(api.get(python["_links"]["doc:articles"]["href"]))
    assert [a["title"] for a in tagged["_embedded"]] == ["A", "B"]
    assert tagged["totalArticles"] == 2


def test_tag_filters_pages_and_search_and_its_page_links_keep_it(api, blog, alice_token):
    for n in range(5):
        tags = ["Even"] if n % 2 == 0 else ["Odd"]
        post(api, blog, alice_token, {"title": f"Note {n} garden", "tags": tags})

    first = body(api.get(f"{articles_url(blog)}?tag=even&pageSize=2"))
    assert [a["title"] for a in first["_embedded"]] == ["Note 0 garden", "Note 2 garden"]
    assert (first["totalArticles"], first["totalPages"]) == (3, 2)
    following = first["_links"]["nextPage"]["href"]
    assert "tag=even" in following
    second = body(api.get(following))
    assert [a["title"] for a in second["_embedded"]] == ["Note 4 garden"]

    newest = body(api.get(f"{articles_url(blog)}?tag=odd&sort=-created"))
    assert [a["title"] for a in newest["_embedded"]] == ["Note 3 garden", "Note 1 garden"]

    searched = body(api.get(f"{articles_url(blog)}?q=garden&tag=odd&sort=title"))
    assert [a["title"] for a in searched["_embedded"]] == ["Note 1 garden", "Note 3 garden"]
    everywhere = body(api.get(f"{API}/articles?q=garden&tag=even&sort=title"))
    assert everywhere["totalArticles"] == 3

    assert body(api.get(f"{articles_url(blog)}?tag=none"))["totalArticles"] == 0
    bad = api.get(f"{articles_url(blog)}?tag=Not%20a%20slug")
    assert bad.status_code == 400
    assert "tag" in body(bad)["errors"]
    # Another tag, another list: the untagged page is not answered from the tagged one's entry.
    assert body(api.get(articles_url(blog)))["totalArticles"] == 5
