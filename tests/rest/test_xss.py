"""Safe HTML (issue 29, point 2): the OWASP XSS filter-evasion vectors in tests/fixtures/
xss_vectors.txt, written over HTTP as drafts' content (plain text and Markdown) and titles, each
draft's preview link opened without a token (HAL, and the page for a browser), then published
through its `doc:publish` and read back through every surface that shows HTML: REST (HAL
`contentHtml` of an article and of a page's items, and the browsable HTML pages), GraphQL
(`contentHtml`) and the Atom feed (`content` and `summary`, both type="html"). No output may hold
a script, an event handler or a script URL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from lxml import etree
from lxml import html as lxml_html

from articles.api import feeds
from articles.content import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, excerpt, render_html
from articles.models import Article
from blogs.models import TITLE_MAX_LENGTH
from tests.rest.conftest import API, HalClient, body

VECTORS_FILE = Path(__file__).resolve().parent.parent / "fixtures" / "xss_vectors.txt"
_PLACEHOLDERS = {"{TAB}": "\t", "{NL}": "\n", "{CR}": "\r"}
ATOM = "{http://www.w3.org/2005/Atom}"
FORMATS = ("text", "markdown")
# Attributes that hold a URL, in any element a browser knows.
URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "formaction",
    "background",
    "dynsrc",
    "lowsrc",
    "data",
    "xlink:href",
    "poster",
    "srcset",
    "codebase",
    "cite",
}
# What a URL may not start with once a browser has dropped its whitespace and control characters.
BAD_SCHEME = re.compile(r"^(javascript|vbscript|data|livescript|mocha|file):", re.IGNORECASE)
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")
# Every tag as nh3 writes it: <name attr="value" ...> or </name>.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[^\s=>/]+(?:=\"[^\"]*\")?)*)\s*/?>")
_ATTRIBUTE = re.compile(r"\s+([^\s=>/]+)(?:=\"([^\"]*)\")?")


def load_vectors() -> list[str]:
    vectors = []
    for line in VECTORS_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        for placeholder, character in _PLACEHOLDERS.items():
            line = line.replace(placeholder, character)
        vectors.append(line)
    return vectors


VECTORS = load_vectors()


def check_url(value: str, where: str) -> None:
    cleaned = _IGNORED_IN_URL.sub("", value)
    assert not BAD_SCHEME.match(cleaned), f"{where}: a script URL {value!r}"


def check_element_tree(root: Any, where: str, *, allowed_tags: frozenset[str] | None) -> None:
    """Every element and attribute of a parsed tree: no script, no handler, no script URL;
    with `allowed_tags`, nothing off the allow-list either."""
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue  # a comment or a processing instruction
        tag = element.tag.lower()
        if allowed_tags is not None:
            assert tag in allowed_tags, f"{where}: <{tag}> is not on the allow-list"
        for name, value in element.attrib.items():
            name = name.lower()
            assert not name.startswith("on"), f"{where}: an event handler {name}={value!r}"
            assert name != "style", f"{where}: a style attribute {value!r}"
            if name in URL_ATTRIBUTES or name.endswith("href"):
                check_url(value, f"{where} <{tag} {name}>")


def check_fragment(html: str, where: str) -> None:
    """A sanitised fragment, by a strict scan of its tags and by lxml's HTML parser."""
    assert "<script" not in html.lower(), f"{where}: {html!r}"
    for closing, tag, attributes in _TAG.findall(html):
        assert tag.lower() in ALLOWED_TAGS, f"{where}: <{tag}> in {html!r}"
        if closing:
            continue
        for name, value in _ATTRIBUTE.findall(attributes):
            allowed = ALLOWED_ATTRIBUTES.get(tag.lower(), set()) | (
                {"rel"} if tag.lower() == "a" else set()
            )
            assert name.lower() in allowed, f"{where}: {name}= on <{tag}> in {html!r}"
            if name.lower() in ("href", "src"):
                check_url(lxml_html.fromstring(f'<i t="{value}"></i>').get("t"), where)
    # Whatever the scan read as text must not be a tag to a parser either.
    if html.strip():
        wrapper = lxml_html.fragment_fromstring(html, create_parent="div")
        check_element_tree(wrapper, where, allowed_tags=ALLOWED_TAGS | {"div"})


# The preview page's own elements around the sanitised content (drafts.api.views).
PREVIEW_PAGE_TAGS = ALLOWED_TAGS | {"html", "head", "meta", "title", "body", "main"}
HTML_NAVIGATION = "text/html,application/xhtml+xml"


def check_preview(api: HalClient, draft: dict[str, Any], sent: dict[str, str], token: str) -> None:
    """The draft's preview link, opened without a token: its HAL gives back what was sent, as
    data; its page for a browser holds no script, handler or script URL, and the title as text."""
    made = api.write("POST", draft["_links"]["doc:preview"]["href"], token=token)
    assert made.status_code == 201, made.content[:300]
    href = body(made)["href"]
    where = f"preview of draft {draft['id']} ({sent['contentFormat']} {sent['content']!r})"

    hal = api.get(href, headers={"Accept": "application/hal+json"})
    assert hal.status_code == 200, where
    assert not hal["Content-Type"].startswith("text/html"), where
    preview = body(hal)
    assert {name: preview.get(name) for name in sent} == sent, where
    if "contentHtml" in preview:
        check_fragment(preview["contentHtml"], where)

    page = api.get(href, headers={"Accept": HTML_NAVIGATION})
    assert page.status_code == 200, where
    assert page["Content-Type"].startswith("text/html"), where
    assert b"<script" not in page.content.lower(), where
    document = lxml_html.fromstring(page.content)
    assert browsable_scripts(document) == [], where
    check_element_tree(document, where, allowed_tags=PREVIEW_PAGE_TAGS)
    for shown_title in (document.find(".//title"), document.find(".//h1")):
        assert shown_title is not None and len(shown_title) == 0, where  # text, no element


def write_preview_and_publish(api: HalClient, blog_id: int, token: str) -> list[int]:
    """A draft per vector and format over HTTP, the vector its content and (cut to a valid
    title) its title; each previewed (check_preview) and published through its `doc:publish`.
    Answers the published articles' ids."""
    article_ids = []
    for index, vector in enumerate(VECTORS):
        title = (
            vector[:TITLE_MAX_LENGTH] if vector[:TITLE_MAX_LENGTH].strip() else f"Vector {index}"
        )
        for content_format in FORMATS:
            sent = {"title": title, "content": vector, "contentFormat": content_format}
            created = api.write("POST", f"{API}/blogs/{blog_id}/drafts", sent, token=token)
            assert created.status_code == 201, (vector, created.content[:300])
            draft = body(created)
            assert draft["contentFormat"] == content_format
            check_preview(api, draft, sent, token)
            published = api.write("POST", draft["_links"]["doc:publish"]["href"], {}, token=token)
            assert published.status_code == 201, (vector, published.content[:300])
            article = body(published)
            assert published["Location"].endswith(f"/blogs/{blog_id}/articles/{article['id']}")
            assert (article["title"], article["contentFormat"]) == (title, content_format)
            check_fragment(article["contentHtml"], f"published article {article['id']}")
            article_ids.append(article["id"])
    return article_ids


def test_the_vectors_file_holds_the_owasp_set():
    assert len(VECTORS) >= 80
    assert len(set(VECTORS)) == len(VECTORS)


@pytest.mark.parametrize(
    "unsafe",
    [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=x></SCRIPT>",
        '<img src="x" onerror="alert(1)">',
        "<p onclick=alert(1)>x</p>",
        '<a href="javascript:alert(1)">x</a>',
        '<a href=" jav&#x09;ascript:alert(1)">x</a>',
        '<a href="data:text/html,x">x</a>',
        '<img src="VBScript:x">',
        "<iframe></iframe>",
        '<p style="x:y">x</p>',
    ],
)
def test_the_check_finds_what_it_looks_for(unsafe):
    with pytest.raises(AssertionError):
        check_fragment(unsafe, "unsafe")


@pytest.mark.parametrize("content_format", FORMATS)
def test_render_html_leaves_no_script_in_any_vector(content_format):
    for vector in VECTORS:
        check_fragment(render_html(vector, content_format), f"{content_format} {vector!r}")
        # The excerpt is plain text, a front-end escapes it: it holds no markup of nh3's.
        assert "<p>" not in excerpt(vector, content_format)


def check_rest_articles_and_pages(api: Client, blog_id: int, ids: list[int]) -> None:
    for article_id in ids:
        response = api.get(
            f"{API}/blogs/{blog_id}/articles/{article_id}",
            headers={"Accept": "application/hal+json"},
        )
        assert response.status_code == 200
        article = body(response)
        check_fragment(article["contentHtml"], f"article {article_id}")
    seen = set()
    for page_index in range(1, len(ids) // 100 + 2):
        response = api.get(
            f"{API}/blogs/{blog_id}/articles?pageIndex={page_index}&pageSize=100",
            headers={"Accept": "application/hal+json"},
        )
        assert response.status_code == 200
        for item in body(response)["_embedded"]:
            check_fragment(item["contentHtml"], f"page item {item['id']}")
            seen.add(item["id"])
    assert seen == set(ids)


def browsable_scripts(document: Any) -> list[tuple[str | None, str]]:
    return [(s.get("src"), (s.text or "").strip()) for s in document.iter("script")]


def check_browsable_pages(api: Client, blog_id: int, ids: list[int]) -> None:
    """The HTML pages for people: the same scripts as a page of a harmless article (the page's
    own), and no handler or script URL anywhere."""
    harmless = Article.objects.create(blog_id=blog_id, title="Harmless", content="Hello")
    baseline_response = api.get(
        f"{API}/blogs/{blog_id}/articles/{harmless.pk}", headers={"Accept": "text/html"}
    )
    assert baseline_response.status_code == 200
    baseline = browsable_scripts(lxml_html.fromstring(baseline_response.content))
    urls = [f"{API}/blogs/{blog_id}/articles?pageIndex={i}&pageSize=100" for i in (1, 2, 3)]
    urls += [f"{API}/blogs/{blog_id}/articles/{pk}" for pk in ids]
    for url in urls:
        response = api.get(url, headers={"Accept": "text/html"})
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/html")
        document = lxml_html.fromstring(response.content)
        assert browsable_scripts(document) == baseline, url
        check_element_tree(document, url, allowed_tags=None)


def graphql(client: Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables}),
        content_type="application/json",
        headers={"Accept": "application/graphql-response+json"},
    )
    assert response.status_code == 200, response.content[:300]
    answer = json.loads(response.content)
    assert "errors" not in answer, answer
    return answer["data"]


def check_graphql(api: Client, blog_id: int, ids: list[int]) -> None:
    query = """query($blog: ID!, $page: Int!) { blog(id: $blog) {
        articles(pageIndex: $page, pageSize: 100) { items { id title contentHtml excerpt } } } }"""
    seen = set()
    for page_index in range(1, len(ids) // 100 + 2):
        data = graphql(api, query, {"blog": str(blog_id), "page": page_index})
        for item in data["blog"]["articles"]["items"]:
            check_fragment(item["contentHtml"], f"GraphQL article {item['id']}")
            seen.add(int(item["id"]))
    assert seen == set(ids)
    data = graphql(
        api,
        "query($blog: ID!, $id: ID!) { article(blogId: $blog, id: $id) { contentHtml } }",
        {"blog": str(blog_id), "id": str(min(ids))},
    )
    check_fragment(data["article"]["contentHtml"], "GraphQL article")


def check_feed(api: Client, blog_id: int, ids: list[int]) -> None:
    response = api.get(f"{API}/blogs/{blog_id}/feed", headers={"Accept": "application/atom+xml"})
    assert response.status_code == 200
    feed = etree.fromstring(response.content)
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == len(ids)
    contents = 0
    for entry in entries:
        title = entry.find(f"{ATOM}title")
        # A title is text (escaped by the XML writer), never HTML.
        assert title.get("type") in (None, "text")
        for name in ("content", "summary"):
            element = entry.find(f"{ATOM}{name}")
            if element is None:
                continue
            assert element.get("type") == "html"
            check_fragment(element.text or "", f"feed {name} of {entry.findtext(f'{ATOM}id')}")
            contents += name == "content"
    assert contents == len(entries)


def test_every_vector_drafted_previewed_and_published_reads_back_safe_everywhere(
    api, blog, alice_token, settings, monkeypatch
):
    """One pass over the vectors (create → preview → publish), then every surface that shows
    the published articles: one test, so that the few hundred drafts are written once."""
    # Hundreds of writes and reads in one test: the rate limits are not what it is about.
    settings.RATE_LIMIT_ENABLED = False
    # Every article in one feed, rather than the newest FEED_ENTRIES.
    monkeypatch.setattr(feeds, "FEED_ENTRIES", 10_000)
    ids = write_preview_and_publish(api, blog.pk, alice_token)
    assert len(ids) == len(set(ids)) == 2 * len(VECTORS)
    assert set(Article.objects.filter(blog=blog).values_list("id", flat=True)) == set(ids)
    check_rest_articles_and_pages(api, blog.pk, ids)
    check_graphql(api, blog.pk, ids)
    check_feed(api, blog.pk, ids)
    check_browsable_pages(api, blog.pk, ids)  # last: it adds a harmless article
