"""Pages of articles, blogs and comments: shape, links, parameters, order and cost."""

from __future__ import annotations

import pytest
from django.db import connection

from articles import services
from articles.models import Article
from blogs.models import Blog
from tests.rest.conftest import API, body, is_postgres
from tests.support.queries import ContentQueries, outside_savepoints

ORIGIN = "http://testserver"


def make_articles(blog: Blog, count: int) -> list[Article]:
    return [services.article_create(blog=blog, title=f"Post {n}") for n in range(1, count + 1)]


def page_url(blog: Blog, index: int, size: int) -> str:
    return f"{ORIGIN}{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize={size}"


def test_a_middle_page_has_all_five_links_in_link_and_links(api, blog):
    make_articles(blog, 25)

    response = api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex=2&pageSize=10")

    assert response.status_code == 200
    data = body(response)
    assert list(data) == [
        "pageIndex",
        "pageSize",
        "totalPages",
        "totalArticles",
        "_link",
        "_links",
        "_embedded",
    ]
    assert (data["pageIndex"], data["pageSize"], data["totalPages"], data["totalArticles"]) == (
        2,
        10,
        3,
        25,
    )
    expected = {
        "firstPage": {"href": page_url(blog, 1, 10)},
        "previousPage": {"href": page_url(blog, 1, 10)},
        "self": {"href": page_url(blog, 2, 10)},
        "nextPage": {"href": page_url(blog, 3, 10)},
        "lastPage": {"href": page_url(blog, 3, 10)},
    }
    assert data["_link"] == expected
    assert data["_links"]["curies"][0]["name"] == "doc"
    assert {k: v for k, v in data["_links"].items() if k not in {"curies", "item"}} == expected
    assert isinstance(data["_embedded"], list)
    assert [a["title"] for a in data["_embedded"]] == [f"Post {n}" for n in range(11, 21)]


def test_first_page_has_no_previous_and_last_page_has_no_next(api, blog):
    make_articles(blog, 25)

    first = body(api.get(f"{API}/blogs/{blog.pk}/articles"))
    last = body(api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex=3"))

    assert first["pageIndex"] == 1 and first["pageSize"] == 10
    assert "previousPage" not in first["_link"] and "nextPage" in first["_link"]
    assert "nextPage" not in last["_link"] and "previousPage" in last["_link"]
    assert len(last["_embedded"]) == 5


def test_an_empty_blog_has_zero_pages_and_last_page_points_at_page_one(api, blog):
    data = body(api.get(f"{API}/blogs/{blog.pk}/articles"))

    assert data["totalPages"] == 0 and data["totalArticles"] == 0
    assert data["_embedded"] == []
    assert data["_link"]["lastPage"] == {"href": page_url(blog, 1, 10)}
    assert set(data["_link"]) == {"firstPage", "self", "lastPage"}


def test_a_page_past_the_end_is_an_empty_200(api, blog):
    make_articles(blog, 3)

    response = api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex=7&pageSize=2")

    assert response.status_code == 200
    data = body(response)
    assert data["_embedded"] == []
    assert data["totalPages"] == 2
    assert "nextPage" not in data["_link"]
    huge = api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex=999999999999999999")
    assert huge.status_code == 200 and body(huge)["_embedded"] == []


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("pageIndex=0", "pageIndex"),
        ("pageIndex=-1", "pageIndex"),
        ("pageIndex=abc", "pageIndex"),
        ("pageIndex=1.5", "pageIndex"),
        ("pageIndex=", "pageIndex"),
        ("pageIndex=" + "9" * 5000, "pageIndex"),
        ("pageSize=0", "pageSize"),
        ("pageSize=101", "pageSize"),
        ("pageSize=ten", "pageSize"),
    ],
)
def test_a_bad_page_parameter_is_a_400_naming_it(api, blog, query, parameter):
    response = api.get(f"{API}/blogs/{blog.pk}/articles?{query}")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    problem = body(response)
    assert list(problem["errors"]) == [parameter]
    assert parameter in problem["detail"]


def test_page_size_of_the_maximum_is_accepted(api, blog):
    assert api.get(f"{API}/blogs/{blog.pk}/articles?pageSize=100").status_code == 200


def test_pages_are_oldest_first_stable_and_skip_deleted_articles(api, blog):
    articles = make_articles(blog, 7)
    services.article_delete(article=articles[2])
    seen = []
    for index in (1, 2, 3):
        data = body(api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize=3"))
        seen += [a["id"] for a in data["_embedded"]]

    expected = [a.pk for a in articles if a.pk != articles[2].pk]
    assert seen == expected
    assert data["totalArticles"] == 6


def test_articles_of_other_blogs_do_not_appear(api, blog, other_blog):
    make_articles(blog, 2)
    make_articles(other_blog, 3)

    data = body(api.get(f"{API}/blogs/{other_blog.pk}/articles"))

    assert data["totalArticles"] == 3
    assert all(a["_links"]["doc:blog"]["title"] == "Bob's blog" for a in data["_embedded"])


def test_the_number_of_queries_for_a_page_does_not_grow_with_page_size(api, blog):
    make_articles(blog, 60)

    def queries_for(size: int, index: int = 1) -> int:
        with ContentQueries(connection) as captured:
            response = api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize={size}")
        assert response.status_code == 200
        assert len(body(response)["_embedded"]) == min(size, 60 - (index - 1) * size)
        return len(outside_savepoints(captured))

    small, large, deep = queries_for(1), queries_for(50), queries_for(5, index=12)
    assert small == large == deep
    # The blog, then the page's rows by the ids of the page (one statement): no COUNT(*) and
    # nothing per article; on PostgreSQL the page's time bound (statement_timeout) before it.
    assert large == 2 + is_postgres()


def test_the_page_count_comes_from_the_blog_not_from_a_count_query(api, blog):
    make_articles(blog, 4)

    with ContentQueries(connection) as captured:
        api.get(f"{API}/blogs/{blog.pk}/articles")

    assert not any("COUNT(" in q["sql"].upper() for q in captured.captured_queries)


def test_blog_list_is_paged_with_total_blogs(api, blog, other_blog, archived_blog):
    data = body(api.get(f"{API}/blogs?pageSize=2"))

    assert data["totalBlogs"] == 3 and data["totalPages"] == 2
    assert [b["id"] for b in data["_embedded"]] == [blog.pk, other_blog.pk]
    assert data["_link"]["nextPage"] == {"href": f"{ORIGIN}{API}/blogs?pageIndex=2&pageSize=2"}
    assert api.get(f"{API}/blogs?pageSize=500").status_code == 400


def test_comment_page_has_the_page_shape_with_total_comments(api, article, alice, bob):
    for n in range(3):
        services.comment_create(article=article, author=bob if n % 2 else alice, text=f"c{n}")

    data = body(api.get(f"{API}/blogs/{article.blog_id}/articles/{article.pk}/comments?pageSize=2"))

    assert data["totalComments"] == 3 and data["totalPages"] == 2
    assert [c["text"] for c in data["_embedded"]] == ["c0", "c1"]
    assert [c["author"] for c in data["_embedded"]] == ["alice", "bob"]
    assert "nextPage" in data["_link"] and "nextPage" in data["_links"]


@pytest.mark.parametrize("page_size", [1, 3, 4, 7, 25])
def test_pages_from_the_front_and_from_the_back_join_into_every_article_once(api, blog, page_size):
    """Pages past the middle are read from the end of the index: the seam must not show."""
    articles = make_articles(blog, 25)
    for gone in (articles[0], articles[12], articles[24]):
        services.article_delete(article=gone)
    expected = [
        a.pk for a in articles if a.pk not in {articles[0].pk, articles[12].pk, articles[24].pk}
    ]

    seen, index = [], 1
    while True:
        data = body(
            api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex={index}&pageSize={page_size}")
        )
        seen += [a["id"] for a in data["_embedded"]]
        if "nextPage" not in data["_link"]:
            break
        index += 1

    assert seen == expected
    assert index == data["totalPages"] == -(-22 // page_size)


def test_a_page_leaves_out_content_over_the_bound_and_links_to_the_whole(
    api, blog, settings, alice
):
    settings.PAGE_CONTENT_MAX_CHARS = 1000
    services.article_create(blog=blog, title="Short", content="s" * 1000)
    long = services.article_create(blog=blog, title="Long", content="l" * 1001)
    services.article_create(blog=blog, title="None")

    page = body(api.get(f"{API}/blogs/{blog.pk}/articles?pageSize=100"))
    short_item, long_item, none_item = page["_embedded"]

    assert short_item["content"] == "s" * 1000 and "contentOmitted" not in short_item
    assert "content" not in long_item and long_item["contentOmitted"] is True
    assert "content" not in none_item and "contentOmitted" not in none_item
    whole = body(api.get(long_item["_links"]["self"]["href"]))
    assert whole["id"] == long.pk and whole["content"] == "l" * 1001


def test_a_page_of_100_large_articles_stays_small(api, blog, settings):
    for number in range(100):
        services.article_create(blog=blog, title=f"Big {number}", content="x" * 1024 * 1024)
    response = api.get(f"{API}/blogs/{blog.pk}/articles?pageSize=100")
    assert response.status_code == 200
    assert len(response.content) < 200 * 1024
    assert all(item["contentOmitted"] for item in body(response)["_embedded"])


# The `item` relation (RFC 6573) of a page's `_links`: one titled link per member.


def article_url(blog: Blog, article: Article) -> str:
    return f"{ORIGIN}{API}/blogs/{blog.pk}/articles/{article.pk}"


def test_an_article_page_links_each_article_as_an_item_titled_in_page_order(api, blog):
    articles = make_articles(blog, 25)

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles?pageIndex=2&pageSize=10"))

    assert data["_links"]["item"] == [
        {"href": article_url(blog, a), "title": a.title} for a in articles[10:20]
    ]
    assert [i["href"] for i in data["_links"]["item"]] == [
        a["_links"]["self"]["href"] for a in data["_embedded"]
    ]


def test_item_is_only_in_links_and_the_specifications_link_keeps_its_five_relations(api, blog):
    make_articles(blog, 3)

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles"))

    assert "item" in data["_links"]
    assert set(data["_link"]) == {"firstPage", "self", "lastPage"}
    assert list(data)[-1] == "_embedded" and len(data["_embedded"]) == 3


def test_an_item_link_leads_to_the_article_it_names(api, blog):
    make_articles(blog, 2)
    item = body(api.get(f"{API}/blogs/{blog.pk}/articles"))["_links"]["item"][1]

    article = body(api.get(item["href"]))

    assert article["title"] == item["title"] == "Post 2"


@pytest.mark.parametrize("query", ["", "?pageIndex=4"])
def test_an_empty_page_has_an_empty_item_array(api, blog, query):
    make_articles(blog, 0 if not query else 3)

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles{query}"))

    assert data["_links"]["item"] == [] and data["_embedded"] == []


def test_a_page_of_one_still_has_item_as_an_array(api, blog):
    (only,) = make_articles(blog, 1)

    data = body(api.get(f"{API}/blogs/{blog.pk}/articles"))

    assert data["_links"]["item"] == [{"href": article_url(blog, only), "title": "Post 1"}]


def test_a_cached_page_shows_the_new_title_in_its_item_after_a_replace(api, blog, alice_token):
    (article,) = make_articles(blog, 1)
    page = f"{API}/blogs/{blog.pk}/articles"
    assert body(api.get(page))["_links"]["item"][0]["title"] == "Post 1"

    replaced = api.write("PUT", article_url(blog, article), {"title": "Renamed"}, token=alice_token)

    assert replaced.status_code == 200
    assert body(api.get(page))["_links"]["item"][0]["title"] == "Renamed"


def test_the_blog_list_links_each_blog_as_an_item_titled(api, blog, other_blog):
    data = body(api.get(f"{API}/blogs"))

    assert data["_links"]["item"] == [
        {"href": f"{ORIGIN}{API}/blogs/{blog.pk}", "title": "Alice's blog"},
        {"href": f"{ORIGIN}{API}/blogs/{other_blog.pk}", "title": "Bob's blog"},
    ]


def test_a_comment_item_is_titled_with_its_author_and_the_start_of_its_text(
    api, article, alice, bob
):
    short = services.comment_create(article=article, author=alice, text="Nice post")
    long = services.comment_create(
        article=article,
        author=bob,
        text="I  disagree\nwith almost every word of this, and here is why: " + "x" * 500,
    )
    comments = f"{ORIGIN}{API}/blogs/{article.blog_id}/articles/{article.pk}/comments"

    data = body(api.get(comments))

    assert data["_links"]["item"] == [
        {"href": f"{comments}/{short.pk}", "title": "alice: Nice post"},
        {
            "href": f"{comments}/{long.pk}",
            "title": "bob: I disagree with almost every word of thi\u2026",
        },
    ]
