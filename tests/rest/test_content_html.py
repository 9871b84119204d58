"""An article's `contentHtml` and `excerpt` (issue 29, point 2): how each format renders, and
when the representations leave them out."""

from __future__ import annotations

from lxml import etree

from articles import services as article_services
from articles.content import excerpt, render_html
from articles.models import Article
from tests.rest.conftest import API, body

ATOM = "{http://www.w3.org/2005/Atom}"


def markdown_article(blog, content: str | None) -> Article:
    article = article_services.article_create(blog=blog, title="Markdown", content=content)
    Article.objects.filter(pk=article.pk).update(content_format="markdown")
    return article


def test_plain_text_is_escaped_into_paragraphs_with_line_breaks():
    assert render_html("One <b>&amp;\nline two\r\n\r\n  \n Two", "text") == (
        "<p>One &lt;b&gt;&amp;amp;<br>line two</p><p>Two</p>"
    )
    assert render_html("", "text") == render_html(None, "text") == ""
    assert render_html("  \n\n ", "text") == ""


def test_markdown_is_commonmark_with_raw_html_as_text_and_safe_links():
    html = render_html(
        '# Hi\n\n*a* <b>b</b> [x](https://e.example "t") [y](javascript:alert(1))', "markdown"
    )
    assert html == (
        "<h1>Hi</h1>\n<p><em>a</em> &lt;b&gt;b&lt;/b&gt; "
        '<a href="https://e.example" title="t" rel="noopener noreferrer nofollow">x</a>'
        " [y](javascript:alert(1))</p>\n"
    )
    assert render_html("![i](data:image/png;base64,AAAA)", "markdown") == '<p><img alt="i"></p>\n'
    assert render_html("```python\nx\n```", "markdown") == (
        '<pre><code class="language-python">x\n</code></pre>\n'
    )
    # The same text as plain text is not Markdown.
    assert render_html("*a*", "text") == "<p>*a*</p>"


def test_the_excerpt_is_plain_text_cut_at_a_word():
    assert excerpt("**Tom** &amp; [Jerry](https://e.example)\n\n`x<1`", "markdown") == (
        "Tom & Jerry x<1"
    )
    long = "word " * 100
    cut = excerpt(long, "text")
    assert cut.endswith("word\u2026") and len(cut) <= 201
    assert excerpt("x" * 300, "text", length=20) == "x" * 20 + "\u2026"
    assert excerpt("Short", "text") == "Short"
    # Only the beginning is read: the excerpt of a 1 MB article is as short.
    assert excerpt("a " * 500_000, "markdown") == ("a " * 100).strip() + "\u2026"


def test_the_article_carries_html_and_excerpt_and_leaves_them_out_without_content(api, blog):
    with_content = markdown_article(blog, "Some *words*\n\nand more")
    without = article_services.article_create(blog=blog, title="None", content=None)
    empty = article_services.article_create(blog=blog, title="Empty", content="")

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles/{with_content.pk}"))
    assert data["contentHtml"] == "<p>Some <em>words</em></p>\n<p>and more</p>\n"
    assert data["excerpt"] == "Some words and more"
    data = body(api.get(f"{API}/blogs/{blog.pk}/articles/{without.pk}"))
    assert "contentHtml" not in data and "excerpt" not in data and "content" not in data
    data = body(api.get(f"{API}/blogs/{blog.pk}/articles/{empty.pk}"))
    assert (data["content"], data["contentHtml"], data["excerpt"]) == ("", "", "")


def test_a_page_leaves_the_html_out_with_a_long_content_but_keeps_the_excerpt(api, blog, settings):
    settings.PAGE_CONTENT_MAX_CHARS = 50
    short = article_services.article_create(blog=blog, title="Short", content="Brief")
    long = article_services.article_create(blog=blog, title="Long", content="many words " * 10)

    items = {i["id"]: i for i in body(api.get(f"{API}/blogs/{blog.pk}/articles"))["_embedded"]}
    assert items[short.pk]["contentHtml"] == "<p>Brief</p>"
    assert "content" not in items[long.pk] and "contentHtml" not in items[long.pk]
    assert items[long.pk]["contentOmitted"] is True
    assert items[long.pk]["excerpt"] == ("many words " * 10).strip()


def test_the_feed_carries_the_sanitised_html_as_content(api, blog, settings):
    settings.PAGE_CONTENT_MAX_CHARS = 50
    markdown_article(blog, "A *b* <script>x</script>")
    article_services.article_create(blog=blog, title="None", content=None)
    article_services.article_create(blog=blog, title="Long", content="x" * 60)

    response = api.get(f"{API}/blogs/{blog.pk}/feed", headers={"Accept": "application/atom+xml"})
    entries = etree.fromstring(response.content).findall(f"{ATOM}entry")
    long, none, marked = (e.find(f"{ATOM}content") for e in entries)
    assert marked.get("type") == "html"
    assert marked.text == "<p>A <em>b</em> &lt;script&gt;x&lt;/script&gt;</p>\n"
    assert none is None and long is None


def test_graphql_reads_the_html_and_the_excerpt(api, blog):
    article = markdown_article(blog, "Some *words*")
    without = article_services.article_create(blog=blog, title="None", content=None)
    query = "query($b: ID!, $a: ID!) { article(blogId: $b, id: $a) { contentHtml excerpt } }"

    def read(pk: int) -> dict:
        response = api.post(
            "/graphql",
            data={"query": query, "variables": {"b": str(blog.pk), "a": str(pk)}},
            content_type="application/json",
        )
        return body(response)["data"]["article"]

    assert read(article.pk) == {
        "contentHtml": "<p>Some <em>words</em></p>\n",
        "excerpt": "Some words",
    }
    assert read(without.pk) == {"contentHtml": None, "excerpt": None}
