"""Publishing is one guarded transition: of concurrent publications of a draft exactly one writes
the article. Real connections through live_server; PostgreSQL only (on SQLite the live server
shares the test's one in-memory connection, so transactions cannot overlap there)."""

from __future__ import annotations

from functools import partial

import pytest
from django.db import connection

from articles.models import Article
from blogs import services as blog_services
from blogs.models import Blog
from drafts import services as draft_services
from drafts.models import Draft
from tests.rest.test_concurrency import http
from tests.support.load import race


@pytest.mark.django_db(transaction=True)
def test_concurrent_publications_of_a_draft_make_one_article(live_server, django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    alice = django_user_model.objects.create_user("alice", "a@example.org", "pw")
    blog = Blog.objects.create(title="Race")
    blog.authors.add(alice)
    _, token = blog_services.token_issue(user=alice, name="race")

    for round_number in range(5):
        draft = draft_services.draft_create(blog=blog, title=f"Round {round_number}")
        url = f"{live_server.url}/api/v1.2/blogs/{blog.pk}/drafts/{draft.pk}/publish"
        publish = partial(http, "POST", url, body={}, headers={"X-Access-Token": token})
        results = [status for status, _, _ in race([publish] * 4)]
        assert sorted(results) == [201, 410, 410, 410], round_number
        assert Article.objects.filter(title=f"Round {round_number}").count() == 1

    assert Article.objects.count() == 5
    blog.refresh_from_db()
    assert blog.article_count == 5
    assert not Draft.objects.open().exists()
