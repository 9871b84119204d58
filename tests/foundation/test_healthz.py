from __future__ import annotations

import socket
import time

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client, override_settings

from core import health


def test_healthz_answers_ok_when_the_database_answers(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_answers_503_when_the_database_does_not(client, unreachable_database):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "unreachable"
    assert response["Retry-After"].isdigit()


def test_healthz_refuses_writes(client, db):
    assert client.post("/healthz").status_code == 405


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_livez_answers_even_without_a_database(client, unreachable_database):
    response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_readyz_answers_ok_with_every_check_named(client, db):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "migrations": "ok"},
    }


def test_readyz_names_the_database_when_it_does_not_answer(client, unreachable_database, settings):
    response = client.get("/readyz")
    assert response.status_code == 503
    # Without Redis the shared store is in the database, and fails with it.
    store = [] if settings.REDIS_URL else ["cache"]
    assert response.json()["failing"] == ["database", *store, "migrations"]
    assert response.json()["checks"]["database"] == "unreachable"
    assert response["Retry-After"].isdigit()


def test_readyz_names_the_cache_when_redis_does_not_answer(client, db):
    unreachable = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }
    with override_settings(CACHES=unreachable):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["cache"]
    assert response.json()["checks"]["cache"] == "unreachable"


def test_readyz_names_the_migrations_not_applied(client, db):
    # The app's newest migration: an older one unrecorded below an applied one plans nothing.
    newest = MigrationRecorder(connection).migration_qs.filter(app="articles").latest("name")
    newest.delete()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["migrations"]
    assert f"articles.{newest.name}" in response.json()["checks"]["migrations"]


def test_readyz_checks_the_worker_where_one_is_expected(client, db, settings):
    settings.WORKER_UNSEEN_SECONDS = 60
    cache.set(health.WORKER_SEEN_KEY, time.time() - 5, None)
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"]["worker"] == "ok"


def test_readyz_names_a_worker_not_seen_for_longer_than_allowed(client, db, settings):
    settings.WORKER_UNSEEN_SECONDS = 60
    cache.set(health.WORKER_SEEN_KEY, time.time() - 95, None)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]
    assert response.json()["checks"]["worker"] in ("not seen for 95 s", "not seen for 96 s")


def test_readyz_names_a_worker_never_seen_once_the_server_gave_it_time(client, db, settings):
    settings.WORKER_UNSEEN_SECONDS = 1
    cache.delete(health.WORKER_SEEN_KEY)
    while time.time() - health._STARTED < 2:  # a server as old as the bound and a second more
        time.sleep(0.1)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["worker"].startswith("not seen in the ")
    assert response.json()["checks"]["worker"].endswith(" s since this server started")


def test_livez_and_readyz_refuse_writes(client, db):
    assert client.post("/livez").status_code == 405
    assert client.post("/readyz").status_code == 405


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_an_unsafe_method_on_a_probe_is_405_not_a_csrf_page(db, path, method):
    # A client as it really comes: no CSRF cookie, a browser-like Accept, a body.
    browser = Client(enforce_csrf_checks=True)
    response = getattr(browser, method)(
        path, "{}", content_type="application/json", HTTP_ACCEPT="text/html,*/*"
    )
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert b"CSRF" not in response.content
    assert browser.get(path).status_code == 200
