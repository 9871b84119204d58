from __future__ import annotations


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
