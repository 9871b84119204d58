"""ETag and Last-Modified; 304 on reads, 412 on writes, in RFC 9110's order."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils.http import http_date

from articles import services
from articles.models import Article
from blogs.models import Blog
from tests.rest.conftest import API, body


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def resource_urls(article) -> list[str]:
    return [
        article_url(article),
        f"{API}/blogs/{article.blog_id}",
        f"{API}/blogs/{article.blog_id}/articles",
        f"{API}/blogs",
        f"{article_url(article)}/comments",
    ]


def test_every_article_blog_and_page_has_a_strong_etag_and_last_modified(api, article):
    for url in resource_urls(article):
        response = api.get(url)
        assert response.status_code == 200, url
        assert response["ETag"].startswith('"') and not response["ETag"].startswith("W/"), url
        assert response["Last-Modified"].endswith(" GMT"), url


def test_if_none_match_with_the_current_etag_is_304_with_empty_body(api, article):
    for url in resource_urls(article):
        first = api.get(url)

        again = api.get(url, headers={"If-None-Match": first["ETag"]})

        assert again.status_code == 304, url
        assert again.content == b""
        assert again["ETag"] == first["ETag"]
        assert again["Last-Modified"] == first["Last-Modified"]
        # RFC 9110 15.4.5: no content, so no Content-Type.
        assert "Content-Type" not in again, url


def test_if_none_match_accepts_weak_forms_lists_and_star(api, article):
    etag = api.get(article_url(article))["ETag"]

    for header in (f"W/{etag}", f'"other", {etag}', "*"):
        assert api.get(article_url(article), headers={"If-None-Match": header}).status_code == 304


def test_a_stale_if_none_match_gets_the_full_200(api, article, alice_token):
    etag = api.get(article_url(article))["ETag"]
    services.article_replace(article=article, title="Changed")

    response = api.get(article_url(article), headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert body(response)["title"] == "Changed"
    assert response["ETag"] != etag


def test_if_modified_since_on_or_after_the_last_change_is_304(api, article):
    last_modified = api.get(article_url(article))["Last-Modified"]
    later = http_date((article.updated_at + timedelta(hours=1)).timestamp())
    earlier = http_date((article.updated_at - timedelta(hours=1)).timestamp())

    assert (
        api.get(article_url(article), headers={"If-Modified-Since": last_modified}).status_code
        == 304
    )
    assert api.get(article_url(article), headers={"If-Modified-Since": later}).status_code == 304
    assert api.get(article_url(article), headers={"If-Modified-Since": earlier}).status_code == 200


def test_last_modified_has_whole_seconds(api, article):
    response = api.get(article_url(article))

    assert response["Last-Modified"] == http_date(int(article.updated_at.timestamp()))


def test_an_etag_condition_wins_over_a_date_condition(api, article):
    first = api.get(article_url(article))
    old = http_date((article.updated_at - timedelta(days=1)).timestamp())
    future = http_date((article.updated_at + timedelta(days=1)).timestamp())

    # If-None-Match matches: 304 although If-Modified-Since alone would say 200.
    response = api.get(
        article_url(article), headers={"If-None-Match": first["ETag"], "If-Modified-Since": old}
    )
    assert response.status_code == 304
    # If-None-Match does not match: 200 although If-Modified-Since alone would say 304.
    response = api.get(
        article_url(article), headers={"If-None-Match": '"stale"', "If-Modified-Since": future}
    )
    assert response.status_code == 200


def test_any_article_write_changes_the_blog_and_page_etags(api, article, alice_token):
    before = [api.get(url)["ETag"] for url in resource_urls(article)[1:4]]

    api.write("POST", f"{API}/blogs/{article.blog_id}/articles", {"title": "n"}, token=alice_token)

    after = [api.get(url)["ETag"] for url in resource_urls(article)[1:4]]
    assert all(b != a for b, a in zip(before, after, strict=True))


def test_a_new_comment_changes_the_comment_page_etag(api, article, bob):
    url = f"{article_url(article)}/comments"
    before = api.get(url)["ETag"]

    comment = services.comment_create(article=article, author=bob, text="hi")
    middle = api.get(url)["ETag"]
    services.comment_delete(comment=comment)

    assert len({before, middle}) == 2
    assert api.get(url, headers={"If-None-Match": middle}).status_code == 200


def test_put_with_the_current_etag_succeeds_and_returns_the_new_one(api, article, alice_token):
    etag = api.get(article_url(article))["ETag"]

    response = api.write(
        "PUT",
        article_url(article),
        {"title": "Next"},
        token=alice_token,
        headers={"If-Match": etag},
    )

    assert response.status_code == 200
    assert response["ETag"] != etag
    assert response["ETag"] == api.get(article_url(article))["ETag"]


def test_put_and_delete_with_a_stale_etag_are_412_and_change_nothing(api, article, alice_token):
    stale = api.get(article_url(article))["ETag"]
    services.article_replace(article=article, title="Someone else's")

    put = api.write(
        "PUT",
        article_url(article),
        {"title": "Mine"},
        token=alice_token,
        headers={"If-Match": stale},
    )
    delete = api.write(
        "DELETE", article_url(article), token=alice_token, headers={"If-Match": stale}
    )

    for response in (put, delete):
        assert response.status_code == 412
        assert response["Content-Type"] == "application/problem+json"
        assert body(response)["status"] == 412
    current = Article.objects.get(pk=article.pk)
    assert current.title == "Someone else's" and current.deleted_at is None


def test_if_match_uses_the_strong_comparison(api, article, alice_token):
    etag = api.get(article_url(article))["ETag"]

    response = api.write(
        "PUT",
        article_url(article),
        {"title": "x"},
        token=alice_token,
        headers={"If-Match": f"W/{etag}"},
    )

    assert response.status_code == 412


def test_if_match_star_matches_any_existing_article(api, article, alice_token):
    response = api.write(
        "PUT",
        article_url(article),
        {"title": "Star"},
        token=alice_token,
        headers={"If-Match": "*"},
    )

    assert response.status_code == 200


def test_if_unmodified_since_before_the_last_change_is_412(api, article, alice_token):
    earlier = http_date((article.updated_at - timedelta(hours=1)).timestamp())
    later = http_date((article.updated_at + timedelta(hours=1)).timestamp())

    refused = api.write(
        "PUT",
        article_url(article),
        {"title": "x"},
        token=alice_token,
        headers={"If-Unmodified-Since": earlier},
    )
    accepted = api.write(
        "PUT",
        article_url(article),
        {"title": "y"},
        token=alice_token,
        headers={"If-Unmodified-Since": later},
    )

    assert refused.status_code == 412
    assert accepted.status_code == 200


def test_if_match_wins_over_if_unmodified_since(api, article, alice_token):
    etag = api.get(article_url(article))["ETag"]
    earlier = http_date((article.updated_at - timedelta(hours=1)).timestamp())

    response = api.write(
        "PUT",
        article_url(article),
        {"title": "x"},
        token=alice_token,
        headers={"If-Match": etag, "If-Unmodified-Since": earlier},
    )

    assert response.status_code == 200


def test_if_none_match_star_on_put_of_an_existing_article_is_412(api, article, alice_token):
    response = api.write(
        "PUT",
        article_url(article),
        {"title": "x"},
        token=alice_token,
        headers={"If-None-Match": "*"},
    )

    assert response.status_code == 412


@pytest.mark.parametrize(
    ("situation", "status"),
    [
        ("no token", 401),
        ("no right", 403),
        ("missing", 404),
        ("deleted", 410),
        ("archived", 409),
        ("locked", 423),
    ],
)
def test_other_errors_win_over_a_failed_precondition(
    api, article, alice_token, bob, token_for, situation, status
):
    url, token = article_url(article), alice_token
    if situation == "no token":
        token = None
    elif situation == "no right":
        token = token_for(bob)
    elif situation == "missing":
        url = f"{API}/blogs/{article.blog_id}/articles/99999"
    elif situation == "deleted":
        services.article_delete(article=article)
    elif situation == "archived":
        from blogs.services import blog_archive

        blog_archive(blog=article.blog)
    elif situation == "locked":
        services.article_lock(article=article)

    for method in ("PUT", "DELETE"):
        response = api.write(
            method,
            url,
            {"title": "x"} if method == "PUT" else None,
            token=token,
            headers={"If-Match": '"certainly-not-current"'},
        )
        assert response.status_code == status, (situation, method)


def test_deleting_a_blog_and_creating_another_changes_the_blog_list_etag(api, blog, other_blog):
    first = api.get(f"{API}/blogs")
    other_blog.delete()
    Blog.objects.create(title="A newcomer")

    again = api.get(f"{API}/blogs", headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    assert body(again)["totalBlogs"] == 2


def test_the_html_page_and_the_json_body_of_one_state_have_different_etags(api, article):
    for url in resource_urls(article):
        hal = api.get(url)
        html = api.get(url, headers={"Accept": "text/html"})
        plain = api.get(url, headers={"Accept": "application/json"})
        assert html["Content-Type"].startswith("text/html"), url
        assert html["ETag"] != hal["ETag"], url
        assert plain["ETag"] == hal["ETag"], url  # the same bytes
        # Each tag validates its own variant only.
        assert (
            api.get(url, headers={"Accept": "text/html", "If-None-Match": html["ETag"]}).status_code
            == 304
        )
        assert (
            api.get(url, headers={"Accept": "text/html", "If-None-Match": hal["ETag"]}).status_code
            == 200
        )
        assert api.get(url, headers={"If-None-Match": html["ETag"]}).status_code == 200


def test_if_match_takes_the_tag_of_either_variant_of_the_current_state(api, article, alice_token):
    html_tag = api.get(article_url(article), headers={"Accept": "text/html"})["ETag"]
    response = api.write(
        "PUT",
        article_url(article),
        {"title": "Edited from what the browser showed"},
        token=alice_token,
        headers={"If-Match": html_tag},
    )
    assert response.status_code == 200
    stale = api.write(
        "PUT",
        article_url(article),
        {"title": "Lost?"},
        token=alice_token,
        headers={"If-Match": html_tag},
    )
    assert stale.status_code == 412
