"""How PostgreSQL is told to plan a search (cases.search.planner): by its search index,
whatever it estimates, and only around the catalogue query's own searches."""

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from cases.catalogue.query import CatalogueQuery
from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner"),
]
SEARCHED = ["/en/cases/", "/en/cases.json", "/en/graph.json", "/en/graph.json?tab=case"]


def settings(cursor):
    cursor.execute("SELECT current_setting('enable_seqscan'), current_setting('jit')")
    return cursor.fetchone()


def with_search(path, query):
    return f"{path}{'&' if '?' in path else '?'}{query}"


@pytest.mark.parametrize("path", SEARCHED)
def test_searches_are_planned_without_scanning_every_case(client, library, path):
    # With most of 100,000 cases matching, PostgreSQL would scan them all, reading each
    # vector back from TOAST: twice as slow as its GIN index (see `make bench`). A plan's
    # choice shows only at that size, so this checks what the planner is told.
    # Nor is a query compiled (JIT) for the "disabled" cost of a table only a scan reads.
    runs = []

    def record(execute, sql, params, many, context):
        if "current_setting" not in sql:  # not this wrapper's own
            runs.append(("search_vector @@" in sql, settings(context["cursor"])))
        return execute(sql, params, many, context)

    with connection.cursor() as cursor:
        before = settings(cursor)
    with connection.execute_wrapper(record):
        assert client.get(with_search(path, "q=checkpoint")).status_code == 200
    assert any(search for search, _settings in runs)
    assert {planned for search, planned in runs if search} == {("off", "off")}
    assert all(jit == "off" for _search, (seqscan, jit) in runs if seqscan == "off")
    with connection.cursor() as cursor:
        assert settings(cursor) == before == ("on", before[1])


@pytest.mark.parametrize("path", SEARCHED)
def test_a_search_matching_every_case_reads_them_by_the_search_index(client, path):
    # Knowing that a search matches every case, PostgreSQL would rather read the public
    # cases by the status index and test each one's vector, read back from TOAST: at
    # 10,000 cases 44 ms against 12 by the search index. It does so here at 150.
    org = OrganisationFactory()
    CaseFactory.create_batch(150, org=org, summary_en="The checkpoint writes stalled.")
    refresh_search_text(Case.objects.all())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case; ANALYZE cases_searchentry")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(with_search(path, "q=checkpoint")).status_code == 200
    searches = [q["sql"] for q in queries if "search_vector @@" in q["sql"]]
    assert searches
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")  # as the catalogue query plans them
        for search in searches:
            cursor.execute(f"EXPLAIN {search}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Bitmap Index Scan on search_entry_vector" in plan
            assert "case_status" not in plan
        cursor.execute("RESET enable_seqscan")


def test_a_search_of_punctuation_alone_lists_by_the_indexes_as_no_search_does(client):
    # It looks for no word, so nothing narrows the cases but their status.
    CaseFactory.create_batch(150, org=OrganisationFactory())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case; ANALYZE cases_searchentry")
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/en/cases.json?q=%3F%3F%3F").status_code == 200
    assert not [q for q in queries if "enable_seqscan" in q["sql"]]  # nor is it planned as one
    reads = [q["sql"] for q in queries if 'FROM "cases_case"' in q["sql"]]
    assert reads
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        for sql in reads:
            cursor.execute(f"EXPLAIN {sql}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Seq Scan on cases_case" not in plan, plan
        cursor.execute("RESET enable_seqscan")


def test_a_failed_search_leaves_sequential_scans_on(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("the page broke")

    with connection.cursor() as cursor:
        before = settings(cursor)
    monkeypatch.setattr("cases.catalogue.query.Paginator.get_page", broken)
    with pytest.raises(ValueError):
        CatalogueQuery(QueryDict("q=checkpoint")).page()
    with connection.cursor() as cursor:
        assert settings(cursor) == before == ("on", before[1])


def test_the_facet_index_is_built_by_its_own_plan_before_a_search(client, library):
    # Its scans of every public case are the right plan; with sequential scans off it would
    # read them by an index instead.
    builds = []

    def record(execute, sql, params, many, context):
        if "WITH p AS MATERIALIZED" in sql:
            builds.append(settings(context["cursor"]))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert client.get("/en/cases/?q=checkpoint").status_code == 200
    assert len(builds) == 1 and builds[0][0] == "on"
