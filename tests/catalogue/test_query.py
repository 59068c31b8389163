"""The catalogue query: one object built from the query string, which owns the filterset,
the search, the facet counts and the page."""

import datetime

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from cases.caching import public_content_changed
from cases.catalogue.facet_index import CaseSet
from cases.catalogue.query import PAGE_SIZE, CatalogueQuery
from cases.models import Case, TermRedirect, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


def catalogue(query_string):
    return CatalogueQuery(QueryDict(query_string))


@pytest.fixture
def library():
    """25 published cases with DNS (every fifth with a BGP title), and a draft."""
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    acme = OrganisationFactory(slug="acme", name="Acme")
    for n in range(25):
        CaseFactory(
            public_id=f"IL-{n + 1:04d}",
            org=acme,
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=n),
            title_en="BGP route leak" if n % 5 == 0 else "Resolver outage",
            with_terms=[dns],
        )
    CaseFactory(public_id="IL-0100", status=Case.Status.DRAFT, published_at=None)
    refresh_search_text(Case.objects.all())


def test_it_reads_the_query_string(library):
    query = catalogue("q=+BGP++leak+&component=dns&from=2020-01-01&sort=oldest")
    assert query.valid and query.notices == []
    assert query.q == "BGP leak" and query.searches and query.has_filters
    assert query.sort == "oldest" and query.ordering == ("date", "public_id")
    assert catalogue("q=bgp").ordering == ("-relevance", "-date", "-public_id")
    assert catalogue("").ordering == ("-date", "-public_id") and not catalogue("").has_filters


def test_punctuation_alone_is_no_search(library):
    query = catalogue("q=%3F%3F%3F")
    assert query.q == "???" and not query.searches
    assert query.page().paginator.count == 25


def test_invalid_filters_list_nothing_and_say_why(library):
    query = catalogue("component=NOT+A+SLUG&to=yesterday&q=bgp")
    assert not query.valid and query.q == ""
    assert [str(notice) for notice in query.notices] == [
        "Component: “NOT A SLUG” is not a valid value.",
        "To: “yesterday” is not a date in the form YYYY-MM-DD.",
    ]
    assert list(query.page().object_list) == [] and query.listed() == CaseSet()
    counts = query.facet_counts()
    assert counts.page.paginator.count == 0 and list(counts.page.object_list) == []


def test_the_page_and_the_counts_of_a_list_without_a_search(library, django_assert_num_queries):
    query = catalogue("component=dns&page=2")
    query.index  # noqa: B018  (built apart: see tests/catalogue/test_facets.py)
    # The version of the content; then the page's keys, chosen in SQL: no COUNT(*), since
    # the facet index counts the cases.
    with django_assert_num_queries(1):
        counts = query.facet_counts()
    assert counts.page.number == 2 and counts.page.paginator.count == 25
    assert len(counts.page.object_list) == 25 - PAGE_SIZE
    assert counts.facets["component"] == {"dns": 25} and counts.facets["org"] == {"acme": 25}
    assert counts.years == [("2020", 25)]
    assert counts.within[(Vocabulary.COMPONENT, "dns")] == 25


def test_a_search_counts_and_pages_from_one_run_of_it(library):
    query = catalogue("q=bgp&component=dns")
    query.index  # noqa: B018
    with CaptureQueriesContext(connection) as queries:
        counts = query.facet_counts()
    runs = [q["sql"] for q in queries if "cases_searchentry" in q["sql"]]
    assert len(runs) == 1 and not [q for q in queries if "COUNT(" in q["sql"]]
    expected = list(
        Case.objects.public()
        .filter(title_en__startswith="BGP")
        .order_by("-date")
        .values_list("pk", flat=True)
    )
    assert counts.page.object_list == expected and counts.page.paginator.count == 5
    assert query.listed().keys() == sorted(expected)


def searches_run(query_string):
    query = catalogue(query_string)
    query.index  # noqa: B018
    with CaptureQueriesContext(connection) as queries:
        counts = query.facet_counts()
    return counts, [q["sql"] for q in queries if "cases_searchentry" in q["sql"]]


def test_a_search_is_ranked_once_for_its_pages_and_facets_until_the_content_changes(library):
    first, runs = searches_run("q=dns")
    assert len(runs) == 1
    # Another page, another facet, the same words: the kept ranking answers.
    second, runs = searches_run("q=dns&page=2")
    assert not runs and second.page.object_list == first_page_after(first, "q=dns")
    bgp, runs = searches_run("q=dns&component=dns")
    assert not runs and bgp.page.paginator.count == 25
    # A change: the case that left is gone from the very next list.
    gone = Case.objects.public().filter(pk=first.page.object_list[0]).get()
    Case.objects.filter(pk=gone.pk).update(status=Case.Status.WITHDRAWN)
    public_content_changed()
    after, runs = searches_run("q=dns")
    assert len(runs) == 1 and gone.pk not in after.page.object_list
    assert after.page.paginator.count == first.page.paginator.count - 1


def first_page_after(first, query_string):
    ranked = list(
        Case.objects.public().order_by("-date", "-public_id").values_list("pk", flat=True)
    )
    return ranked[PAGE_SIZE : 2 * PAGE_SIZE]


def test_a_page_past_the_last_is_the_last(library):
    counts = catalogue("q=dns&page=9").facet_counts()  # every case has DNS
    assert counts.page.number == 2 and len(counts.page.object_list) == 25 - PAGE_SIZE
    assert catalogue("page=x").page().number == 1


def test_a_page_in_sql_in_any_order_with_any_fields(library):
    page = catalogue("q=bgp").page(1, size=2, fields=("public_id",), ordering=("date",))
    assert page.paginator.count == 5 and page.paginator.num_pages == 3
    assert page.object_list == [{"public_id": "IL-0001"}, {"public_id": "IL-0006"}]


def test_old_slugs_of_merged_terms_lead_to_the_survivor(library):
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    TermRedirect.objects.create(vocabulary=Vocabulary.COMPONENT, old_slug="name-service", term=dns)
    hidden = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="hidden")  # no public case
    TermRedirect.objects.create(vocabulary=Vocabulary.COMPONENT, old_slug="secret", term=hidden)
    moved = catalogue("component=name-service&component=dns&org=acme").survivors()
    assert moved.urlencode() == "component=dns&org=acme"
    assert catalogue("component=dns").survivors() is None
    assert catalogue("component=secret").survivors() is None  # not to a term only drafts have
