"""A hot article or page is answered from the representation cache, without SQL, and every write
that changes what it shows is seen at once."""

from __future__ import annotations

from articles import services
from blogs import services as blog_services
from blogs.models import Blog
from tests.rest.conftest import API, body
from tests.support.queries import content_queries


def article_url(article) -> str:
    return f"{API}/blogs/{article.blog_id}/articles/{article.pk}"


def test_a_hot_article_costs_no_sql(api, article):
    first = api.get(article_url(article))
    with content_queries(0):
        again = api.get(article_url(article))
        not_modified = api.get(article_url(article), headers={"If-None-Match": first["ETag"]})
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert not_modified.status_code == 304


def test_a_hot_page_costs_no_sql(api, article):
    url = f"{API}/blogs/{article.blog_id}/articles?pageSize=5"
    first = api.get(url)
    with content_queries(0):
        assert api.get(url).content == first.content


def test_with_representation_cache_seconds_0_every_read_is_built(api, article, settings):
    settings.REPRESENTATION_CACHE_SECONDS = 0
    url = f"{API}/blogs/{article.blog_id}/articles?pageSize=5"
    first = api.get(url)
    # The blog, then the page (and, on PostgreSQL, its time bound and the test's savepoints).
    with content_queries(at_most=5) as captured:
        again = api.get(url)
    assert again.content == first.content
    assert len(captured) >= 2
    with content_queries(at_most=1) as one:
        assert api.get(article_url(article)).status_code == 200
    assert len(one) == 1  # the article and its blog, read again


def test_a_replace_a_delete_and_a_blog_edit_are_seen_at_once(api, article, alice_token):
    api.get(article_url(article))
    page_url = f"{API}/blogs/{article.blog_id}/articles"
    api.get(page_url)

    replaced = api.write("PUT", article_url(article), {"title": "Replaced"}, token=alice_token)
    assert replaced.status_code == 200
    assert body(api.get(article_url(article)))["title"] == "Replaced"
    assert body(api.get(page_url))["_embedded"][0]["title"] == "Replaced"

    blog = Blog.objects.get(pk=article.blog_id)
    blog.title = "Renamed blog"
    blog.save()
    shown = body(api.get(article_url(article)))["_links"]["doc:blog"]["title"]
    assert shown == "Renamed blog"

    blog_services.blog_archive(blog=blog)
    blog_services.blog_unarchive(blog=blog)
    assert api.write("DELETE", article_url(article), token=alice_token).status_code == 204
    assert api.get(article_url(article)).status_code == 410
    assert body(api.get(page_url))["totalArticles"] == 0


def test_a_new_article_is_on_the_cached_page_at_once(api, article):
    page_url = f"{API}/blogs/{article.blog_id}/articles"
    assert body(api.get(page_url))["totalArticles"] == 1
    services.article_create(blog=article.blog, title="Second")
    assert body(api.get(page_url))["totalArticles"] == 2


def test_each_origin_gets_its_own_hrefs(api, article, settings):
    settings.ALLOWED_HOSTS = ["testserver", "localhost"]
    here = body(api.get(article_url(article)))["_links"]["self"]["href"]
    there = body(api.get(article_url(article), HTTP_HOST="localhost"))["_links"]["self"]["href"]
    assert here.startswith("http://testserver/") and there.startswith("http://localhost/")
