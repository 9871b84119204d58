"""An OpenAPI document that a generated client can trust.

Valid OpenAPI; every status an operation answers is declared for it (a client generated from the
document raises on an undeclared one, as one did on a deleted article's 410), and every body it
answers is one its schema describes, property by property (the schema is drf-spectacular's,
derived from the serializers that write the bodies); descriptions written for users, never the
code's docstrings; a base URL; `security` on every operation.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

from articles import services as article_services
from articles.api import serializers
from articles.api.views import articles as article_views
from articles.api.views import blogs as blog_views
from articles.api.views import comments as comment_views
from articles.api.views import revisions as revision_views
from blogs import services as blog_services
from blogs.models import Blog
from drafts import services as draft_services
from webhooks import services as webhook_services
from webhooks.models import Delivery

PROBLEM = "application/problem+json"
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


def served_schema(api, **headers: str) -> dict[str, Any]:
    response = api.get(
        "/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json", **headers}
    )
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """Read once: building the document takes a third of a second, and no test changes it."""
    return served_schema(Client())


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, path_item in document["paths"].items():
        for method, operation in path_item.items():
            if method in HTTP_METHODS:
                yield method, path, operation


def operation_by_id(document: dict[str, Any], operation_id: str) -> tuple[str, str, dict]:
    return next(o for o in operations(document) if o[2]["operationId"] == operation_id)


OPERATION_IDS = [
    "root",
    "blogs_list",
    "blog_read",
    "blog_feed",
    "articles_list",
    "articles_search",
    "article_create",
    "article_read",
    "article_by_slug",
    "tags_list",
    "tag_read",
    "article_replace",
    "article_delete",
    "comments_list",
    "comment_create",
    "comment_read",
    "comment_delete",
    "webhooks_list",
    "webhook_create",
    "webhook_read",
    "webhook_update",
    "webhook_delete",
    "webhook_rotate_secret",
    "webhook_deliveries_list",
    "webhook_delivery_read",
    "webhook_redeliver",
    "revisions_list",
    "revision_read",
    "drafts_list",
    "draft_create",
    "draft_from_article",
    "draft_read",
    "draft_replace",
    "draft_delete",
    "draft_publish",
    "draft_unschedule",
    "draft_preview_link",
    "draft_preview",
]


def test_the_operations_are_the_ones_this_file_checks(document):
    assert sorted(o["operationId"] for _, _, o in operations(document)) == sorted(OPERATION_IDS)


def test_the_served_schema_is_valid_openapi(document):
    validate(document)  # raises OpenAPIValidationError, naming the offending part


def test_the_dumped_schema_is_valid_and_its_server_url_relative(db, tmp_path):
    """What .ci/openapi-lint lints: `manage.py spectacular` has no request, hence no origin."""
    target = tmp_path / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(target))
    dumped = json.loads(target.read_text())

    validate(dumped)
    assert [server["url"] for server in dumped["servers"]] == ["/api/v1.2"]


def test_the_server_url_is_the_api_root_on_the_origin_the_schema_was_read_from(api, db):
    document = served_schema(api, Host="localhost:8000")
    server = urlsplit(document["servers"][0]["url"])

    assert (server.scheme, server.netloc) == ("http", "localhost:8000")
    # A generated client joins the server URL and an operation's path.
    for path in ("/", "/blogs"):
        assert api.get(server.path + path, headers={"Host": "localhost:8000"}).status_code == 200


def test_reads_say_they_need_no_token_and_writes_name_the_token(document):
    scheme = document["components"]["securitySchemes"]["accessToken"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "X-Access-Token")
    for method, path, operation in operations(document):
        # A blog's webhooks and drafts are its authors' business: reading them needs the token
        # too (a draft's preview link is the one way to a draft without it).
        public = method == "get" and "/webhooks" not in path and "/drafts" not in path
        expected = [] if public else [{"accessToken": []}]
        assert operation["security"] == expected, (method, path)


def _docstrings() -> set[str]:
    """Every docstring of the views and serializers: written for maintainers, not API users."""
    found = set()
    for module in (blog_views, article_views, comment_views, revision_views, serializers):
        for _, member in inspect.getmembers(module, inspect.isclass):
            if member.__module__ != module.__name__:
                continue
            for item in (member, *vars(member).values()):
                if (inspect.isclass(item) or inspect.isfunction(item)) and inspect.getdoc(item):
                    found.add(inspect.getdoc(item))
    return found


def _descriptions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            yield from _descriptions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _descriptions(value)


def test_every_operation_has_a_summary_and_a_description_for_users(document):
    internal = _docstrings()
    assert "POST and PUT bodies. `id` and any other unknown field are ignored" in "".join(internal)
    for method, path, operation in operations(document):
        assert operation["summary"], (method, path)
        assert len(operation["description"]) > len(operation["summary"]), (method, path)
    assert not internal & set(_descriptions(document))


@dataclass
class World:
    """Where a request is sent: `place(name)` makes the rows for one state of an article (a
    scenario needs one) and answers their ids as path parameters."""

    author: Any
    tokens: dict[str, str]

    def place(self, name: str) -> dict[str, int]:
        if name == "missing":
            return dict.fromkeys(
                (
                    "blog_id",
                    "article_id",
                    "comment_id",
                    "webhook_id",
                    "delivery_id",
                    "revision",
                    "draft_id",
                ),
                999_999,
            ) | {"token": "not-a-preview-token", "slug": "no-such-slug", "tag_slug": "no-such-tag"}
        blog = Blog.objects.create(title="Alice's blog", description="Notes")
        blog.authors.add(self.author)
        webhook, _ = webhook_services.subscription_create(
            blog=blog, url="https://hooks.example/in", events=["*"]
        )
        article = article_services.article_create(
            blog=blog, title="Post", content="Text", tags=["News"]
        )
        comment = article_services.comment_create(article=article, author=self.author, text="Hi")
        # Revision 1 of the article: the state this replace replaced.
        article = article_services.article_replace(article=article, title="Post", content="Text")
        # A draft of a new article; of the article itself in "draft-of-article", whose
        # article then changes in "article-changed"; deleted in "draft-gone".
        if name in ("draft-of-article", "article-changed"):
            draft = draft_services.draft_from_article(article=article)
            if name == "article-changed":
                article = article_services.article_replace(article=article, title="Changed")
            name = "live"
        else:
            draft = draft_services.draft_create(blog=blog, title="Draft", content="Text")
        token, _ = draft_services.preview_token(draft)
        if name == "draft-gone":
            draft_services.draft_delete(draft=draft)
            name = "live"
        if name == "deleted":
            article_services.article_delete(article=article)
        elif name == "locked":
            article_services.article_lock(article=article)
        elif name == "archived":
            blog_services.blog_archive(blog=blog)
        else:
            assert name in ("live", "delivered"), name
        # The article's creation made a delivery to the webhook: failed, or succeeded.
        delivery = Delivery.objects.filter(subscription=webhook).earliest("id")
        delivery.status = "succeeded" if name == "delivered" else "failed"
        delivery.save()
        return {
            "blog_id": blog.pk,
            "article_id": article.pk,
            "comment_id": comment.pk,
            "webhook_id": webhook.pk,
            "delivery_id": delivery.pk,
            "revision": 1,
            "draft_id": draft.pk,
            "token": token,
            "slug": article.slug,
            "tag_slug": "news",
        }


@pytest.fixture
def world(alice, bob, token_for) -> World:
    return World(author=alice, tokens={"alice": token_for(alice), "bob": token_for(bob)})


BODIES = {
    "article_create": {"title": "New", "content": "Body"},
    "article_replace": {"title": "Replaced"},
    "comment_create": {"text": "Well said"},
    "webhook_create": {"url": "https://hooks.example/new", "events": ["article.created"]},
    "webhook_update": {"active": False},
    "draft_create": {"title": "New draft"},
    "draft_replace": {"title": "Replaced draft"},
    "draft_publish": {},
}


def send(
    api, document: dict, world: World, operation_id: str, how: str, settings
) -> tuple[Any, dict]:
    """Sends `operation_id` as `how` says; returns the response and the operation's schema.

    `how` is a place of the world ("live", "deleted" ...) and maybe one change of the request
    after a colon: "live:no-token", "live:bob", "live:stale-if-match" ..."""
    place, _, change = how.partition(":")
    method, path, operation = operation_by_id(document, operation_id)
    url = urlsplit(document["servers"][0]["url"]).path + path.format(**world.place(place))
    if operation_id == "articles_search":
        url += "?q=Post"  # required there
    headers: dict[str, str] = {}
    if method != "get" or operation["security"]:
        headers["X-Access-Token"] = world.tokens["alice"]
    payload: Any = BODIES.get(operation_id)
    content_type = "application/json"

    if change == "no-token":
        del headers["X-Access-Token"]
    elif change == "bob":
        headers["X-Access-Token"] = world.tokens["bob"]
    elif change == "stale-if-match":
        headers["If-Match"] = '"not-the-current-etag"'
    elif change == "hal-forms":
        headers["Accept"] = "application/prs.hal-forms+json"
    elif change == "long-content":
        settings.PAGE_CONTENT_MAX_CHARS = 2
    elif change == "prefer-representation":
        headers["Prefer"] = "return=representation"
    elif change == "current-etag":
        headers["If-None-Match"] = api.get(url, headers=headers)["ETag"]
    elif change == "bad-page":
        url += ("&" if "?" in url else "?") + "pageSize=0"
    elif change == "malformed-json":
        payload = "{not json"
    elif change == "missing-field":
        payload = {}
    elif change == "invalid-field":
        payload = {"url": "ftp://hooks.example/in"}
    elif change == "text-body":
        payload, content_type = "title=New", "text/plain"
    elif change == "too-large":
        settings.MAX_BODY_BYTES = 8
    elif change == "csv-accept":
        headers["Accept"] = "text/csv"
    elif change == "unknown-host":
        headers["Host"] = "elsewhere.example"
    elif change == "maintenance":
        settings.MAINTENANCE_MODE = True
    elif change == "schedule":
        payload = {"publishAt": (timezone.now() + timedelta(days=30)).isoformat()}
    elif change == "too-large-schedule":
        # `{}` is within any limit: a schedule's body is not.
        payload = {"publishAt": (timezone.now() + timedelta(days=30)).isoformat()}
        settings.MAX_BODY_BYTES = 8
    elif change == "past-time":
        payload = {"publishAt": "2000-01-01T09:00:00Z"}
    elif change == "beyond-horizon":
        payload = {"publishAt": "9999-12-31T23:59:59Z"}
    elif change == "expired-link":
        settings.PREVIEW_LINK_HOURS = -1  # every link is past its time
    elif change == "webhooks-full":
        settings.WEBHOOK_MAX_PER_BLOG = 1  # the place's one webhook fills the blog
    elif change == "rate-limited":
        settings.RATE_LIMIT_ENABLED = True
        settings.RATE_LIMIT_READ = settings.RATE_LIMIT_WRITE = "1/min"
        settings.RATE_LIMIT_WEBHOOK_WRITE = "1/min"
    else:
        assert not change, change

    def issue():
        if method == "get":
            return api.get(url, headers=headers)
        return api.write(method, url, payload, headers=headers, content_type=content_type)

    if change == "rate-limited":
        issue()  # the one request the limit allows
    return issue(), operation


# What each operation answers, and when: a status in the first column of a row is one the
# operation really answers (the test checks it first), so it must be declared.
SCENARIOS = [
    ("root", 200, "live"),
    ("blogs_list", 200, "live"),
    ("blogs_list", 304, "live:current-etag"),
    ("blogs_list", 400, "live:bad-page"),
    ("blog_read", 200, "live"),
    ("blog_read", 304, "live:current-etag"),
    ("blog_read", 404, "missing"),
    ("blog_feed", 200, "live"),
    ("blog_feed", 304, "live:current-etag"),
    ("blog_feed", 404, "missing"),
    ("articles_list", 200, "live"),
    ("articles_list", 200, "live:hal-forms"),
    ("articles_list", 200, "live:long-content"),
    ("articles_list", 304, "live:current-etag"),
    ("articles_list", 400, "live:bad-page"),
    ("articles_list", 404, "missing"),
    ("articles_search", 200, "live"),
    ("articles_search", 304, "live:current-etag"),
    ("articles_search", 400, "live:bad-page"),
    ("article_by_slug", 308, "live"),
    ("tags_list", 200, "live"),
    ("tags_list", 304, "live:current-etag"),
    ("tags_list", 400, "live:bad-page"),
    ("tags_list", 404, "missing"),
    ("tag_read", 200, "live"),
    ("tag_read", 304, "live:current-etag"),
    ("tag_read", 404, "missing"),
    ("article_by_slug", 404, "missing"),
    ("article_create", 201, "live"),
    ("article_create", 201, "live:hal-forms"),
    ("article_create", 400, "live:malformed-json"),
    ("article_create", 401, "live:no-token"),
    ("article_create", 403, "live:bob"),
    ("article_create", 404, "missing"),
    ("article_create", 409, "archived"),
    ("article_create", 413, "live:too-large"),
    ("article_create", 415, "live:text-body"),
    ("article_create", 422, "live:missing-field"),
    ("article_read", 200, "live"),
    ("article_read", 200, "live:hal-forms"),
    ("article_read", 200, "locked:hal-forms"),
    ("article_read", 304, "live:current-etag"),
    ("article_read", 404, "missing"),
    ("article_read", 410, "deleted"),
    ("article_replace", 200, "live"),
    ("article_replace", 400, "live:malformed-json"),
    ("article_replace", 401, "live:no-token"),
    ("article_replace", 403, "live:bob"),
    ("article_replace", 404, "missing"),
    ("article_replace", 409, "archived"),
    ("article_replace", 410, "deleted"),
    ("article_replace", 412, "live:stale-if-match"),
    ("article_replace", 413, "live:too-large"),
    ("article_replace", 415, "live:text-body"),
    ("article_replace", 422, "live:missing-field"),
    ("article_replace", 423, "locked"),
    ("article_delete", 204, "live"),
    ("article_delete", 200, "live:prefer-representation"),
    ("article_delete", 401, "live:no-token"),
    ("article_delete", 403, "live:bob"),
    ("article_delete", 404, "missing"),
    ("article_delete", 409, "archived"),
    ("article_delete", 410, "deleted"),
    ("article_delete", 412, "live:stale-if-match"),
    ("article_delete", 423, "locked"),
    ("comments_list", 200, "live"),
    ("comments_list", 304, "live:current-etag"),
    ("comments_list", 400, "live:bad-page"),
    ("comments_list", 404, "missing"),
    ("comments_list", 410, "deleted"),
    ("comment_create", 201, "live"),
    ("comment_create", 400, "live:malformed-json"),
    ("comment_create", 401, "live:no-token"),
    ("comment_create", 404, "missing"),
    ("comment_create", 409, "archived"),
    ("comment_create", 410, "deleted"),
    ("comment_create", 413, "live:too-large"),
    ("comment_create", 415, "live:text-body"),
    ("comment_create", 422, "live:missing-field"),
    ("comment_read", 200, "live"),
    ("comment_read", 304, "live:current-etag"),
    ("comment_read", 404, "missing"),
    ("comment_read", 410, "deleted"),
    ("comment_delete", 204, "live"),
    ("comment_delete", 401, "live:no-token"),
    ("comment_delete", 403, "live:bob"),
    ("comment_delete", 404, "missing"),
    ("comment_delete", 409, "archived"),
    ("comment_delete", 410, "deleted"),
    ("webhooks_list", 200, "live"),
    ("webhooks_list", 400, "live:bad-page"),
    ("webhooks_list", 401, "live:no-token"),
    ("webhooks_list", 403, "live:bob"),
    ("webhooks_list", 404, "missing"),
    ("webhook_create", 201, "live"),
    ("webhook_create", 400, "live:malformed-json"),
    ("webhook_create", 401, "live:no-token"),
    ("webhook_create", 403, "live:bob"),
    ("webhook_create", 404, "missing"),
    ("webhook_create", 413, "live:too-large"),
    ("webhook_create", 415, "live:text-body"),
    ("webhook_create", 422, "live:missing-field"),
    ("webhook_create", 409, "live:webhooks-full"),
    ("webhook_read", 200, "live"),
    ("webhook_read", 401, "live:no-token"),
    ("webhook_read", 403, "live:bob"),
    ("webhook_read", 404, "missing"),
    ("webhook_update", 200, "live"),
    ("webhook_update", 400, "live:malformed-json"),
    ("webhook_update", 401, "live:no-token"),
    ("webhook_update", 403, "live:bob"),
    ("webhook_update", 404, "missing"),
    ("webhook_update", 413, "live:too-large"),
    ("webhook_update", 415, "live:text-body"),
    ("webhook_update", 422, "live:invalid-field"),
    ("webhook_delete", 204, "live"),
    ("webhook_delete", 401, "live:no-token"),
    ("webhook_delete", 403, "live:bob"),
    ("webhook_delete", 404, "missing"),
    ("webhook_rotate_secret", 200, "live"),
    ("webhook_rotate_secret", 401, "live:no-token"),
    ("webhook_rotate_secret", 403, "live:bob"),
    ("webhook_rotate_secret", 404, "missing"),
    ("webhook_deliveries_list", 200, "live"),
    ("webhook_deliveries_list", 400, "live:bad-page"),
    ("webhook_deliveries_list", 401, "live:no-token"),
    ("webhook_deliveries_list", 403, "live:bob"),
    ("webhook_deliveries_list", 404, "missing"),
    ("webhook_delivery_read", 200, "live"),
    ("webhook_delivery_read", 401, "live:no-token"),
    ("webhook_delivery_read", 403, "live:bob"),
    ("webhook_delivery_read", 404, "missing"),
    ("webhook_redeliver", 202, "live"),
    ("webhook_redeliver", 401, "live:no-token"),
    ("webhook_redeliver", 403, "live:bob"),
    ("webhook_redeliver", 404, "missing"),
    ("webhook_redeliver", 409, "delivered"),
    ("revisions_list", 200, "live"),
    ("revisions_list", 200, "archived"),
    ("revisions_list", 304, "live:current-etag"),
    ("revisions_list", 400, "live:bad-page"),
    ("revisions_list", 404, "missing"),
    ("revisions_list", 410, "deleted"),
    ("revision_read", 200, "live"),
    ("revision_read", 200, "locked"),
    ("revision_read", 304, "live:current-etag"),
    ("revision_read", 404, "missing"),
    ("revision_read", 410, "deleted"),
    ("drafts_list", 200, "live"),
    ("drafts_list", 200, "live:hal-forms"),
    ("drafts_list", 400, "live:bad-page"),
    ("drafts_list", 401, "live:no-token"),
    ("drafts_list", 403, "live:bob"),
    ("drafts_list", 404, "missing"),
    ("draft_create", 201, "live"),
    ("draft_create", 400, "live:malformed-json"),
    ("draft_create", 401, "live:no-token"),
    ("draft_create", 403, "live:bob"),
    ("draft_create", 404, "missing"),
    ("draft_create", 409, "archived"),
    ("draft_create", 413, "live:too-large"),
    ("draft_create", 415, "live:text-body"),
    ("draft_create", 422, "live:missing-field"),
    ("draft_from_article", 201, "live"),
    ("draft_from_article", 401, "live:no-token"),
    ("draft_from_article", 403, "live:bob"),
    ("draft_from_article", 404, "missing"),
    ("draft_from_article", 409, "archived"),
    ("draft_from_article", 410, "deleted"),
    ("draft_read", 200, "live"),
    ("draft_read", 200, "live:hal-forms"),
    ("draft_read", 200, "draft-of-article"),
    ("draft_read", 304, "live:current-etag"),
    ("draft_read", 401, "live:no-token"),
    ("draft_read", 403, "live:bob"),
    ("draft_read", 404, "missing"),
    ("draft_read", 410, "draft-gone"),
    ("draft_replace", 200, "live"),
    ("draft_replace", 400, "live:malformed-json"),
    ("draft_replace", 401, "live:no-token"),
    ("draft_replace", 403, "live:bob"),
    ("draft_replace", 404, "missing"),
    ("draft_replace", 409, "archived"),
    ("draft_replace", 410, "draft-gone"),
    ("draft_replace", 412, "live:stale-if-match"),
    ("draft_replace", 413, "live:too-large"),
    ("draft_replace", 415, "live:text-body"),
    ("draft_replace", 422, "live:missing-field"),
    ("draft_delete", 204, "live"),
    ("draft_delete", 401, "live:no-token"),
    ("draft_delete", 403, "live:bob"),
    ("draft_delete", 404, "missing"),
    ("draft_delete", 409, "archived"),
    ("draft_delete", 410, "draft-gone"),
    ("draft_delete", 412, "live:stale-if-match"),
    ("draft_publish", 201, "live"),
    ("draft_publish", 200, "draft-of-article"),
    ("draft_publish", 202, "live:schedule"),
    ("draft_publish", 400, "live:malformed-json"),
    ("draft_publish", 401, "live:no-token"),
    ("draft_publish", 403, "live:bob"),
    ("draft_publish", 404, "missing"),
    ("draft_publish", 409, "article-changed"),
    ("draft_publish", 409, "archived"),
    ("draft_publish", 410, "draft-gone"),
    ("draft_publish", 412, "live:stale-if-match"),
    ("draft_publish", 413, "live:too-large-schedule"),
    ("draft_publish", 415, "live:text-body"),
    ("draft_publish", 422, "live:past-time"),
    ("draft_publish", 422, "live:beyond-horizon"),
    ("draft_unschedule", 204, "live"),
    ("draft_unschedule", 401, "live:no-token"),
    ("draft_unschedule", 403, "live:bob"),
    ("draft_unschedule", 404, "missing"),
    ("draft_unschedule", 409, "archived"),
    ("draft_unschedule", 410, "draft-gone"),
    ("draft_unschedule", 412, "live:stale-if-match"),
    ("draft_preview_link", 201, "live"),
    ("draft_preview_link", 401, "live:no-token"),
    ("draft_preview_link", 403, "live:bob"),
    ("draft_preview_link", 404, "missing"),
    ("draft_preview_link", 410, "draft-gone"),
    ("draft_preview", 200, "live"),
    ("draft_preview", 404, "missing"),
    ("draft_preview", 404, "draft-gone"),
    ("draft_preview", 410, "live:expired-link"),
]
# What any operation answers.
ANY_OPERATION = [
    (400, "live:unknown-host"),
    (406, "live:csv-accept"),
    (429, "live:rate-limited"),
    (503, "live:maintenance"),
]


def closed(schema: Any, components: dict[str, Any]) -> Any:
    """`schema` with its references resolved and every object closed (additionalProperties
    false where it names its properties), so that a property no schema declares fails too."""
    if isinstance(schema, list):
        return [closed(item, components) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return closed(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    result = {key: closed(value, components) for key, value in schema.items()}
    if "properties" in result and "additionalProperties" not in result:
        result["additionalProperties"] = False
    return result


def assert_body_matches_schema(response, declared: dict, document: dict, how: str) -> None:
    media_type = response["Content-Type"].split(";")[0]
    schema = declared["content"][media_type]["schema"]
    if media_type == "application/atom+xml":
        return  # a string: the feed's own tests read it
    errors = OAS30Validator(closed(schema, document["components"]["schemas"])).iter_errors(
        json.loads(response.content)
    )
    assert not [f"{list(error.absolute_path)}: {error.message}" for error in errors], how


def assert_declared(
    response, operation: dict, status: int, how: str, document: dict | None = None
) -> None:
    assert response.status_code == status, (how, response.content[:300])
    declared = operation["responses"].get(str(status))
    assert declared is not None, f"{operation['operationId']} answers {status} ({how}) undeclared"
    if status >= 400:
        assert response["Content-Type"] == PROBLEM
        assert declared["content"][PROBLEM]["schema"] == {"$ref": "#/components/schemas/Problem"}
    if document is not None and response.content:
        assert_body_matches_schema(response, declared, document, how)


@pytest.mark.parametrize(("operation_id", "status", "how"), SCENARIOS)
def test_every_status_an_operation_answers_is_declared_for_it(
    api, document, world, settings, operation_id, status, how
):
    response, operation = send(api, document, world, operation_id, how, settings)

    assert_declared(response, operation, status, how, document)


@pytest.mark.parametrize(("status", "how"), ANY_OPERATION)
def test_what_any_operation_answers_is_declared_for_each(
    api, document, world, settings, status, how
):
    for operation_id in OPERATION_IDS:
        response, operation = send(api, document, world, operation_id, how, settings)

        assert_declared(response, operation, status, how, document)


def test_every_declared_status_of_an_operation_is_one_it_is_seen_to_answer_or_a_fault(document):
    """The other way round: no status is declared without a scenario above that shows it, except
    those no request can provoke at will (a fault, a full or unreachable database, a chunked
    body; tests/rest/test_errors.py shows them)."""
    shown = {(operation_id, str(status)) for operation_id, status, _ in SCENARIOS}
    shown |= {
        (operation_id, str(status)) for status, _ in ANY_OPERATION for operation_id in OPERATION_IDS
    }
    unprovoked = {"411", "500", "503", "507"}
    for method, path, operation in operations(document):
        for status in operation["responses"]:
            if status in unprovoked:
                continue
            assert (operation["operationId"], status) in shown, (method, path, status)
