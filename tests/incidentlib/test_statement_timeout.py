"""#21, timeouts (the lesson of IL-1002): a public request's slow query is cut and answered
503 with Retry-After, and the connection answers the next request; the admin and the
importer have limits of their own."""

import pytest
from django.db import connection
from django.test import override_settings

from cases.models import Case
from tests.factories import CaseFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statement_timeout"),
]


@pytest.fixture(autouse=True)
def no_limit_after_the_test():
    """A connection keeps the timeout its last request set: none for the tests that follow."""
    yield
    from django.db import connections

    for each in connections.all(initialized_only=True):
        if each.connection is not None and each.vendor == "postgresql":
            with each.cursor() as cursor:
                cursor.execute("SET statement_timeout = 0")
            each.statement_timeout_ms = 0


def current_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


@pytest.fixture
def slow_case_page(monkeypatch):
    """Public pages, made to wait on the database for two seconds (as each asks for the
    content's version first)."""
    from cases import caching

    real = caching.public_version

    def slow():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(2)")
        return real()

    monkeypatch.setattr(caching, "public_version", slow)


# Outside a test's transaction, as requests run (autocommit): the cut query aborts nothing.
@pytest.mark.django_db(transaction=True)
@override_settings(PUBLIC_STATEMENT_TIMEOUT_MS=200)
def test_a_slow_public_query_is_cut_and_answered_503_with_retry_after(client, slow_case_page):
    CaseFactory(public_id="IL-0001")
    response = client.get("/en/cases/IL-0001/")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    # The same connection answers what comes next.
    assert Case.objects.filter(public_id="IL-0001").exists()
    assert current_timeout() == "200ms"


@override_settings(PUBLIC_STATEMENT_TIMEOUT_MS=1500, ADMIN_STATEMENT_TIMEOUT_MS=45000)
def test_public_pages_and_the_admin_have_limits_of_their_own(client, admin_client):
    assert client.get("/en/cases/").status_code == 200
    assert current_timeout() == "1500ms"
    assert admin_client.get("/admin/").status_code == 200
    assert current_timeout() == "45s"
    assert client.get("/en/cases/").status_code == 200
    assert current_timeout() == "1500ms"


@pytest.mark.django_db(transaction=True)
@override_settings(IMPORT_STATEMENT_TIMEOUT_MS=123000)
def test_an_import_runs_with_its_own_limit_for_its_transaction(seed_case, write_json):
    from cases.exchange import importer

    seen = []
    real = importer.CaseImporter.write_all

    def write_all(self, *args, **kwargs):
        seen.append(current_timeout())
        return real(self, *args, **kwargs)

    from django.core.management import call_command

    importer.CaseImporter.write_all = write_all
    try:
        call_command("import_cases", str(write_json("case.json", seed_case)), verbosity=0)
    finally:
        importer.CaseImporter.write_all = real
    assert seen == ["123s"]
    assert current_timeout() != "123s"  # for the import's transaction only


@override_settings(PUBLIC_STATEMENT_TIMEOUT_MS=1500)
def test_the_search_checks_after_an_answer_run_under_the_public_limit(client, monkeypatch):
    """The checks a public request leaves for after its answer (cases.catalogue.
    search_checks) run outside its middleware, on whatever connection is left: one renewed
    at its age limit has the server's default, no limit at all."""
    from cases.catalogue import search_checks

    limits = []

    def check_ahead(version):
        with connection.connection.cursor() as cursor:  # (a renewed session, as the driver has it)
            cursor.execute("SET statement_timeout = 0")
        connection.statement_timeout_ms = None
        limits.append(current_timeout())

    monkeypatch.setattr(search_checks, "check_ahead", check_ahead)
    CaseFactory(public_id="IL-0001")
    assert client.get("/en/cases/IL-0001/").status_code == 200
    assert limits == ["1500ms"]
