import pytest
from django.db import OperationalError, connection


@pytest.mark.django_db
def test_healthz_says_ok_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_says_503_when_the_database_does_not(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert b"database unavailable" in response.content
