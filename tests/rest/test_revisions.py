"""An article's revisions over HTTP: every replace keeps the state it replaced."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.test import override_settings
from lxml import html

from articles import services
from articles.models import Article, ArticleRevision
from blogs import services as blog_services
from tests.rest.conftest import API, body
from tests.rest.test_writes import written_statements
from tests.support.queries import content_queries

ORIGIN = "http://testserver"


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def revisions_url(article) -> str:
    return f"{article_url(article)}/revisions"


def put(api, article, token, fields, *, etag=None):
    etag = etag or api.get(article_url(article))["ETag"]
    response = api.write(
        "PUT", article_url(article), fields, token=token, headers={"If-Match": etag}
    )
    assert response.status_code == 200, response.content
    return response


def test_a_put_keeps_the_state_it_replaced_as_a_revision(api, article, alice_token):
    before = api.get(article_url(article))

    put(api, article, alice_token, {"title": "Second", "content": "New text"})

    response = api.get(revisions_url(article))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/hal+json"
    page = body(response)
    assert (page["pageIndex"], page["pageSize"], page["totalPages"], page["totalRevisions"]) == (
        1,
        10,
        1,
        1,
    )
    [revision] = page["_embedded"]
    assert revision["revision"] == 1
    assert (revision["title"], revision["content"]) == ("First post", "Hello")
    assert revision["articleETag"] == before["ETag"]
    assert revision["replacedBy"] == "alice"
    assert datetime.fromisoformat(revision["replacedAt"]).utcoffset().total_seconds() == 0
    self_href = f"{ORIGIN}{revisions_url(article)}/1"
    assert revision["_links"]["self"] == {"href": self_href}
    assert revision["_links"]["doc:article"] == {"href": f"{ORIGIN}{article_url(article)}"}
    assert page["_links"]["item"] == [{"href": self_href, "title": "Revision 1: First post"}]
    assert (
        page["_links"]["self"]["href"]
        == f"{ORIGIN}{revisions_url(article)}?pageIndex=1&pageSize=10"
    )
    assert page["_link"]["firstPage"] == page["_links"]["firstPage"]
    assert page["_links"]["curies"][0]["name"] == "doc"


def test_the_user_is_named_never_the_token(api, article, editor, token_for):
    token = token_for(editor)
    put(api, article, token, {"title": "By the editor"})

    response = api.get(revisions_url(article))
    assert body(response)["_embedded"][0]["replacedBy"] == "editor"
    assert token.encode() not in response.content
    assert token[:8].encode() not in response.content


def test_revisions_are_newest_first_and_paged(api, article, alice_token):
    for number in range(2, 5):
        put(api, article, alice_token, {"title": f"Title {number}"})

    page = body(api.get(f"{revisions_url(article)}?pageSize=2"))
    assert page["totalRevisions"] == 3
    assert page["totalPages"] == 2
    assert [r["revision"] for r in page["_embedded"]] == [3, 2]
    assert [r["title"] for r in page["_embedded"]] == ["Title 3", "Title 2"]
    assert "previousPage" not in page["_links"]
    second = body(api.get(page["_links"]["nextPage"]["href"]))
    assert [r["revision"] for r in second["_embedded"]] == [1]
    assert second["_embedded"][0]["title"] == "First post"
    past_end = body(api.get(f"{revisions_url(article)}?pageIndex=9&pageSize=2"))
    assert past_end["_embedded"] == []


def test_a_content_less_state_leaves_content_out(api, blog, alice_token):
    article = services.article_create(blog=blog, title="No content")
    put(api, article, alice_token, {"title": "Now with", "content": "text"})

    [revision] = body(api.get(revisions_url(article)))["_embedded"]
    assert "content" not in revision
    assert revision["title"] == "No content"


def test_one_revision_with_links_and_conditional_get(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})

    response = api.get(f"{revisions_url(article)}/1")
    assert response.status_code == 200
    data = body(response)
    assert data["revision"] == 1 and data["title"] == "First post"
    assert data["_links"]["self"]["href"] == f"{ORIGIN}{revisions_url(article)}/1"
    assert data["_links"]["doc:article"]["href"] == f"{ORIGIN}{article_url(article)}"
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")

    again = api.get(f"{revisions_url(article)}/1", headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == response["ETag"]
    since = api.get(
        f"{revisions_url(article)}/1", headers={"If-Modified-Since": response["Last-Modified"]}
    )
    assert since.status_code == 304


def test_the_page_etag_changes_with_a_replace(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})
    first = api.get(revisions_url(article))
    assert (
        api.get(revisions_url(article), headers={"If-None-Match": first["ETag"]}).status_code == 304
    )

    put(api, article, alice_token, {"title": "Third"})
    changed = api.get(revisions_url(article), headers={"If-None-Match": first["ETag"]})
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert body(changed)["totalRevisions"] == 2


def test_unknown_revisions_articles_and_blogs_are_404(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})

    assert api.get(f"{revisions_url(article)}/2").status_code == 404  # the current state
    assert api.get(f"{revisions_url(article)}/99999999999999999999").status_code == 404
    assert api.get(f"{API}/blogs/{article.blog_id}/articles/999999/revisions").status_code == 404
    assert api.get(f"{API}/blogs/999999/articles/{article.pk}/revisions").status_code == 404
    missing = api.get(f"{API}/blogs/999999/articles/{article.pk}/revisions/1")
    assert missing.status_code == 404
    assert missing["Content-Type"] == "application/problem+json"


def test_the_article_links_its_revisions(api, article):
    data = body(api.get(article_url(article)))
    assert data["_links"]["doc:revisions"] == {
        "href": f"{ORIGIN}{revisions_url(article)}{{?pageIndex,pageSize}}",
        "templated": True,
    }
    page = body(api.get(f"{API}/blogs/{article.blog_id}/articles"))
    assert "doc:revisions" in page["_embedded"][0]["_links"]


def test_a_new_article_has_no_revisions_yet(api, article):
    page = body(api.get(revisions_url(article)))
    assert (page["totalRevisions"], page["totalPages"], page["_embedded"]) == (0, 0, [])


def test_revisions_go_with_the_deleted_article_and_answer_410(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})
    etag = api.get(article_url(article))["ETag"]
    deleted = api.write(
        "DELETE", article_url(article), None, token=alice_token, headers={"If-Match": etag}
    )
    assert deleted.status_code == 204

    assert api.get(revisions_url(article)).status_code == 410
    gone = api.get(f"{revisions_url(article)}/1")
    assert gone.status_code == 410
    assert gone["Content-Type"] == "application/problem+json"
    assert not ArticleRevision.objects.filter(id=article.pk).exists()


def test_revisions_of_archived_blogs_and_locked_articles_stay_readable(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})
    services.article_lock(article=article)
    assert api.get(f"{revisions_url(article)}/1").status_code == 200
    blog_services.blog_archive(blog=article.blog)
    response = api.get(revisions_url(article))
    assert response.status_code == 200
    assert body(response)["totalRevisions"] == 1


def test_restoring_is_a_put_of_the_revision_fields_with_if_match(api, article, alice_token):
    put(api, article, alice_token, {"title": "Vandalised"})
    revision = body(api.get(f"{revisions_url(article)}/1"))
    current = api.get(article_url(article))

    restored = api.write(
        "PUT",
        article_url(article),
        {"title": revision["title"], "content": revision.get("content")},
        token=alice_token,
        headers={"If-Match": current["ETag"]},
    )

    assert restored.status_code == 200
    assert (body(restored)["title"], body(restored)["content"]) == ("First post", "Hello")
    newest = body(api.get(revisions_url(article)))["_embedded"][0]
    assert (newest["revision"], newest["title"]) == (2, "Vandalised")
    assert newest["articleETag"] == current["ETag"]
    # A stale ETag (the revision's own articleETag) is refused: nothing is overwritten.
    stale = api.write(
        "PUT",
        article_url(article),
        {"title": "Again"},
        token=alice_token,
        headers={"If-Match": revision["articleETag"]},
    )
    assert stale.status_code == 412


@override_settings(ARTICLE_REVISIONS_KEPT=2)
def test_the_oldest_revisions_beyond_the_bound_are_pruned(api, article, alice_token):
    for number in range(2, 6):
        put(api, article, alice_token, {"title": f"Title {number}"})

    page = body(api.get(revisions_url(article)))
    assert page["totalRevisions"] == 2
    assert [r["revision"] for r in page["_embedded"]] == [4, 3]
    assert api.get(f"{revisions_url(article)}/1").status_code == 404
    assert ArticleRevision.objects.filter(id=article.pk).count() == 2


@override_settings(ARTICLE_REVISIONS_KEPT=3)
def test_the_prune_runs_only_once_past_the_bound(api, article, alice_token):
    statements = []
    for number in range(2, 6):
        etag = api.get(article_url(article))["ETag"]
        with content_queries(at_most=20) as captured:
            put(api, article, alice_token, {"title": f"Title {number}"}, etag=etag)
        statements.append(written_statements(captured.captured_queries)[-1])
    # Versions 1, 2, 3 are kept without a DELETE; replacing version 4 drops version 1.
    assert statements == ["INSERT", "INSERT", "INSERT", "DELETE"]
    assert sorted(ArticleRevision.objects.values_list("version", flat=True)) == [2, 3, 4]


def test_the_revisions_page_costs_the_same_for_many_revisions(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})
    with content_queries(at_most=10) as one:
        api.get(revisions_url(article))
    for number in range(3, 9):
        put(api, article, alice_token, {"title": f"Title {number}"})
    with content_queries(at_most=10) as many:
        response = api.get(revisions_url(article))
    assert len(body(response)["_embedded"]) == 7
    assert len(many.captured_queries) == len(one.captured_queries)


def test_a_stale_unconditional_replace_keeps_the_state_it_really_replaced(article):
    stale = article
    services.article_replace(article=article, title="Meanwhile", content="changed")

    services.article_replace(article=stale, title="Last writer")

    newest = ArticleRevision.objects.filter(id=article.pk).order_by("-version").first()
    assert (newest.version, newest.title, newest.content) == (2, "Meanwhile", "changed")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_revisions_are_read_only(api, article, alice_token, method):
    put(api, article, alice_token, {"title": "Second"})
    for url in (revisions_url(article), f"{revisions_url(article)}/1"):
        response = api.write(method, url, {"title": "x"}, token=alice_token)
        assert response.status_code == 405
        assert "GET" in response["Allow"]


def test_the_browsable_api_shows_revisions_with_links(api, article, alice_token):
    put(api, article, alice_token, {"title": "Second"})
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}

    response = api.get(revisions_url(article), headers=browser)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    document = html.fromstring(response.content)
    hrefs = {a.get("href") for a in document.iter("a")}
    assert f"{ORIGIN}{revisions_url(article)}/1" in hrefs
    one = api.get(f"{revisions_url(article)}/1", headers=browser)
    assert one.status_code == 200
    assert "First post" in one.content.decode()
    one_hrefs = {a.get("href") for a in html.fromstring(one.content).iter("a")}
    assert {f"{ORIGIN}/docs/rels/article", f"{ORIGIN}{article_url(article)}"} <= one_hrefs
    for rel, says in (("revisions", "ARTICLE_REVISIONS_KEPT"), ("revision", "If-Match")):
        docs = api.get(f"/docs/rels/{rel}")
        assert docs.status_code == 200
        assert says in docs.content.decode()


def test_a_conditional_replace_from_an_older_copy_keeps_the_state_it_replaced(article):
    older = Article.objects.get(pk=article.pk)
    services.article_replace(article=article, title="Meanwhile", content="changed")

    services.article_replace(article=older, title="Third", expected_version=2)

    newest = ArticleRevision.objects.filter(id=article.pk).order_by("-version").first()
    assert (newest.version, newest.title, newest.content) == (2, "Meanwhile", "changed")
    assert Article.objects.get(pk=article.pk).version == 3
