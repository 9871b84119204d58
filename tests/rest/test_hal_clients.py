"""HAL clients of other ecosystems against a live server."""

from __future__ import annotations

import pytest
import requests
from halchemy import Api
from halchemy.resource import HalResource
from restnavigator import Navigator

from articles import services as article_services
from tests.support.node import run_module

KETTING_ROOT_TO_BLOG = """
import { Client } from 'ketting';
const client = new Client(process.argv[1]);
const root = client.go('/api/v1.2/');
const blogs = await (await root.follow('doc:blogs')).get();
const blog = await (await root.follow('doc:blog', { id: process.argv[2] })).get();
console.log(JSON.stringify({ total: blogs.data.totalBlogs, title: blog.data.title }));
"""


def test_ketting_follows_the_roots_links_to_the_blogs(live_server, blog):
    found = run_module(KETTING_ROOT_TO_BLOG, live_server.url, str(blog.pk))

    assert found == {"total": 1, "title": blog.title}


# A page names its members in `_links.item` (RFC 6573): generic clients follow them by relation.

KETTING_PAGE_ITEMS = """
import { Client } from 'ketting';
const client = new Client(process.argv[1]);
const page = await client.go('/api/v1.2/')
  .follow('doc:blog', { id: process.argv[2] })
  .follow('doc:articles', { pageSize: 2 });
const state = await page.get();
const first = await (await page.follow('item')).get();
const all = await page.followAll('item');
const states = await Promise.all(all.map((resource) => resource.get()));
const comments = await page.follow('item').follow('doc:comments').followAll('item');
const commentStates = await Promise.all(comments.map((resource) => resource.get()));
console.log(JSON.stringify({
  first: first.data.title,
  all: states.map((each) => each.data.title),
  uris: all.map((resource) => resource.uri),
  titles: state.links.getMany('item').map((link) => link.title),
  comments: commentStates.map((each) => each.data.text),
  rels: state.links.getAll().map((link) => link.rel),
}));
"""


def test_ketting_follows_a_pages_items_to_the_articles_and_their_comments(live_server, blog, alice):
    first = article_services.article_create(blog=blog, title="First post")
    second = article_services.article_create(blog=blog, title="Second post")
    article_services.article_create(blog=blog, title="On the next page")
    article_services.comment_create(article=first, author=alice, text="A first comment")

    found = run_module(KETTING_PAGE_ITEMS, live_server.url, str(blog.pk))

    articles = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles"
    page_rels = ["curies", "firstPage", "self", "nextPage", "lastPage", "item", "item"]
    assert found.pop("rels") == [*page_rels, "0", "1"]  # "0", "1": the `_embedded` array
    assert found == {
        "first": "First post",
        "all": ["First post", "Second post"],
        "uris": [f"{articles}/{first.pk}", f"{articles}/{second.pk}"],
        "titles": ["First post", "Second post"],
        "comments": ["A first comment"],
    }


KETTING_EMBEDDED_ARRAY = """
import { Client } from 'ketting';
const client = new Client(process.argv[1]);
const page = client.go(process.argv[2]);
const state = await page.get();
const item = await page.follow('item');
const cached = await item.get();
const fresh = await item.refresh();
console.log(JSON.stringify({
  rels: state.links.getAll().map((link) => link.rel),
  cached: cached.data,
  fresh: fresh.data,
}));
"""


def test_ketting_reads_the_embedded_array_as_relations_named_by_index_and_as_cached_states(
    live_server, blog, settings
):
    """What the `_embedded` array still does in ketting (docs/rest.md, "Generic HAL clients and
    pages"): its members become links whose relation is their index, and their (partial) bodies
    the cached states of the items, until a refresh."""
    settings.PAGE_CONTENT_MAX_CHARS = 10
    long = article_services.article_create(blog=blog, title="Long", content="x" * 50)
    page = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles"

    found = run_module(KETTING_EMBEDDED_ARRAY, live_server.url, page)

    assert found["rels"] == ["curies", "firstPage", "self", "lastPage", "item", "0"]
    long.refresh_from_db()
    published_at = long.published_at.isoformat().replace("+00:00", "Z")
    # What a page member and the article have in common beside the content (issue 29's
    # properties): a page member bounds the content, never the excerpt of 200 characters.
    common = {
        "id": long.pk,
        "title": "Long",
        "excerpt": "x" * 50,
        "slug": "long",
        "publishedAt": published_at,
        "tags": [],
        "contentFormat": "text",
    }
    assert found["cached"] == {**common, "contentOmitted": True}
    assert found["fresh"] == {
        **common,
        "content": "x" * 50,
        "contentHtml": "<p>" + "x" * 50 + "</p>",
    }


TRAVERSON_ROOT_TO_COMMENTS = """
import traverson from 'traverson';
import JsonHalAdapter from 'traverson-hal';
traverson.registerMediaType(JsonHalAdapter.mediaType, JsonHalAdapter);
const walk = (...rels) => new Promise((resolve, reject) => {
  traverson.from(process.argv[1]).jsonHal()
    .withTemplateParameters({ id: process.argv[2] })
    .follow(...rels)
    .getResource((error, document) => (error ? reject(error) : resolve(document)));
});
const byIndex = await walk('doc:blog', 'doc:articles', 'item[1]', 'doc:comments');
const byTitle = await walk('doc:blog', 'doc:articles', 'item[title:First post]', 'doc:comments');
const article = await walk('doc:blog', 'doc:articles', 'item[title:Second post]');
console.log(JSON.stringify({
  byIndex: byIndex._embedded.map((comment) => comment.text),
  byTitle: byTitle._embedded.map((comment) => comment.text),
  article: article.title,
}));
"""


def test_traverson_hal_walks_root_blog_page_item_comments(live_server, blog, alice, bob):
    first = article_services.article_create(blog=blog, title="First post")
    second = article_services.article_create(blog=blog, title="Second post")
    article_services.comment_create(article=first, author=alice, text="On the first")
    article_services.comment_create(article=second, author=bob, text="On the second")

    found = run_module(TRAVERSON_ROOT_TO_COMMENTS, f"{live_server.url}/api/v1.2/", str(blog.pk))

    assert found == {
        "byIndex": ["On the second"],
        "byTitle": ["On the first"],
        "article": "Second post",
    }


# Python's generic HAL clients (they use requests, so they reach live_server). Both stop at the
# `_embedded` array of a page; what they read elsewhere is asserted, and what stops them pinned,
# so that docs/rest.md ("Generic HAL clients and pages") stays true.


def test_halchemy_walks_to_a_page_that_it_drops_to_an_empty_resource_for_its_embedded_array(
    live_server, blog
):
    article_services.article_create(blog=blog, title="First post")
    api = Api(f"{live_server.url}/api/v1.2/")
    root = api.home.get()
    blog_resource = api.follow(root).to("doc:blog").with_template_values({"id": blog.pk}).get()

    page = api.follow(blog_resource).to("doc:articles").get()

    assert blog_resource["title"] == "Alice's blog"
    assert page == {} and not isinstance(page, HalResource)
    # halchemy keeps the response it could not take as HAL in its metadata.
    raw = page._halchemy.response.body
    assert page._halchemy.response.status_code == 200 and "item" in raw["_links"]
    with pytest.raises(ValueError, match="'_embedded' must be an object"):
        HalResource(raw)


def test_halchemy_reads_an_item_and_its_links_but_follows_no_array_of_links(live_server, blog):
    article_services.article_create(blog=blog, title="First post")
    api = Api(f"{live_server.url}/api/v1.2/")
    raw = requests.get(f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles", timeout=10).json()
    (item,) = raw["_links"]["item"]

    article = api.using_endpoint(item["href"]).get()
    blog_resource = api.follow(article).to("doc:blog").get()

    assert isinstance(article, HalResource) and article["title"] == item["title"] == "First post"
    assert blog_resource["title"] == "Alice's blog"
    # Even a page without `_embedded` would not do: `to(rel)` reads one link object's href.
    without_embedded = HalResource({k: v for k, v in raw.items() if k != "_embedded"})
    assert without_embedded.links == ["curies", "firstPage", "self", "lastPage", "item"]
    with pytest.raises(TypeError):
        api.follow(without_embedded).to("item").get()


def test_restnavigator_walks_to_a_page_that_it_cannot_ingest_for_its_embedded_array(
    live_server, blog
):
    article_services.article_create(blog=blog, title="First post")
    root = Navigator.hal(f"{live_server.url}/api/v1.2/")
    blog_nav = root["doc:blog"](id=blog.pk)

    assert set(root.links()) == {"self", "doc:blogs", "doc:blog", "doc:search"}
    assert blog_nav()["title"] == "Alice's blog"
    with pytest.raises(AttributeError, match="'list' object has no attribute 'items'"):
        blog_nav["doc:articles"]()()


def test_restnavigator_reads_an_items_links_and_follows_them(live_server, blog):
    article = article_services.article_create(blog=blog, title="First post")
    raw = requests.get(f"{live_server.url}/api/v1.2/blogs/{blog.pk}/articles", timeout=10).json()
    (item,) = raw["_links"]["item"]

    article_nav = Navigator.hal(item["href"])

    article.refresh_from_db()
    assert article_nav() == {
        "id": article.pk,
        "title": "First post",
        "slug": "first-post",
        "publishedAt": article.published_at.isoformat().replace("+00:00", "Z"),
        "tags": [],
        "contentFormat": "text",
    }
    assert set(article_nav.links()) == {"self", "doc:blog", "doc:comments", "doc:revisions"}
    assert article_nav["doc:blog"]()["title"] == "Alice's blog"
