"""A list that few cases pass reads those cases, not every public case: asked for the
first few of a rare component's cases in date order, PostgreSQL walked every public case
by date looking for them (25 ms at 10,000 cases, 250 at 100,000)."""

from datetime import date

import pytest
from django.db import connection

from cases.models import Case, CaseTerm, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner"),
]


def case_rows_fetched():
    """Rows of the cases table this transaction has read so far, by any scan."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) "
            "FROM pg_stat_xact_user_tables WHERE relname = %s",
            [Case._meta.db_table],
        )
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    "path", ["/en/cases/?component=rare-part", "/en/cases.json?component=rare-part"]
)
def test_a_rare_components_list_reads_its_own_cases(client, path):
    org = OrganisationFactory()
    cases = Case.objects.bulk_create(CaseFactory.build_batch(2000, org=org))
    # Many terms, as a real vocabulary has: the rare one's count is estimated as theirs.
    parts = [TermFactory(vocabulary=Vocabulary.COMPONENT) for _ in range(300)]
    CaseTerm.objects.bulk_create(
        CaseTerm(case=case, term=parts[(n * 7 + k * 131) % 300], position=k)
        for n, case in enumerate(cases)
        for k in range(3)
    )
    rare = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="rare-part")
    # The oldest: a walk by date meets them last.
    for n in (1, 2):
        CaseFactory(public_id=f"IL-990000{n}", org=org, with_terms=[rare], date=date(1990, 1, n))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the statistics production has
    client.get("/en/cases/")  # the facet index, built once, reads every case
    before = case_rows_fetched()
    page = client.get(path).content.decode()
    assert "IL-9900001" in page and "IL-9900002" in page
    # The finding: 2,002 (each public case, walked by date). Now the two, their cards and
    # the other parts of the page, each a few rows.
    assert case_rows_fetched() - before < 100
