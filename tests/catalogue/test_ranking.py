"""A search's matches kept in order for its version of the content (cases.catalogue.
ranking): pages from the kept head, pages past it from the database, the same either way."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.catalogue import ranking
from cases.catalogue.facet_index import CaseSet
from cases.catalogue.ranking import Ranked, RankedCache
from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.catalogue.test_query import catalogue
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def library():
    """45 published cases that say "outage", a day apart; every third has DNS."""
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    org = OrganisationFactory(slug="acme", name="Acme")
    for n in range(45):
        CaseFactory(
            public_id=f"IL-{n + 1:04d}",
            org=org,
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=n),
            title_en="Outage at the edge" if n % 4 == 0 else "Slow writes",
            summary_en="The outage lasted an hour.",
            with_terms=[dns] if n % 3 == 0 else [],
        )
    refresh_search_text(Case.objects.all())


def expected(query_string, size=20):
    """Each page of a search as the database ranks it, with nothing kept."""
    ranking.kept.clear()
    query = catalogue(query_string)
    with ranking_head(100_000):
        counts = query.facet_counts()
    return counts.page.object_list


class ranking_head:
    def __init__(self, size):
        self.size = size

    def __enter__(self):
        self.old, ranking.HEAD = ranking.HEAD, self.size

    def __exit__(self, *exc):
        ranking.HEAD = self.old


def searches_in(query_string):
    query = catalogue(query_string)
    query.index  # noqa: B018
    with CaptureQueriesContext(connection) as queries:
        counts = query.facet_counts()
    runs = [q["sql"] for q in queries if "cases_searchentry" in q["sql"]]
    return counts.page.object_list, len(runs)


@pytest.mark.parametrize(
    "query_string",
    ["q=outage", "q=outage&page=2", "q=outage&page=3", "q=outage&component=dns",
     "q=outage&component=dns&page=2", "q=outage&sort=oldest&page=2"],
)  # fmt: skip
def test_pages_past_the_kept_head_are_asked_for_and_come_out_the_same(library, query_string):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite keeps every match in order")
    wanted = expected(query_string)
    ranking.kept.clear()
    with ranking_head(5):
        catalogue("q=outage").facet_counts()  # the search, kept with a head of five
        page, runs = searches_in(query_string)
    assert page == wanted


def test_a_first_page_within_the_head_is_taken_from_memory(library):
    first, runs = searches_in("q=outage")
    assert runs == 1 and len(first) == 20
    again, runs = searches_in("q=outage")
    assert runs == 0 and again == first
    faceted, runs = searches_in("q=outage&component=dns")
    assert runs == 0 and faceted == expected("q=outage&component=dns")


def test_what_is_kept_is_bounded_by_the_keys_held():
    kept = RankedCache(limit=100)
    for n in range(5):
        kept.put(n, Ranked(CaseSet(), ranking.array("q", range(40)), True))
    assert kept.get(0) is None and kept.get(1) is None and kept.get(4) is not None
    kept.put("huge", Ranked(CaseSet(), ranking.array("q", range(500)), True))
    assert kept.get("huge") is None  # larger than all there is room for: not kept
