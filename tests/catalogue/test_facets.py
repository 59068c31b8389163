"""Facet counts against a count made the slow, obvious way, over a small random library."""

import datetime
import random
from collections import Counter

import pytest
from django.core.cache import cache
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.caching import public_content_changed
from cases.catalogue.facet_index import forget
from cases.catalogue.filters import FACETS
from cases.catalogue.listing import build_listing
from cases.catalogue.query import CatalogueQuery
from cases.editorial import transitions as workflow
from cases.models import Case, CaseTerm, Term, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db

QUERIES = [
    "",
    "component=c0",
    "component=c0&component=c1",
    "component=c0&symptom=s1",
    "cause=r0&org=o1",
    "severity=high&domain=d0",
    "component=c1&symptom=s0&org=o0&severity=low",
    "from=2021-01-01&to=2023-12-31&component=c2",
    "q=alpha",
    "q=alpha&component=c0",
    "q=blip",
    "q=blip&symptom=s0",
    "q=blip&from=2020-06-01&org=o2&org=o0",
    "from=2022-01-01",
    "component=c0&component=gone",
    "component=gone",
    "org=gone&severity=high",
    "q=nothing-has-this",
]


@pytest.fixture
def random_library():
    rnd = random.Random(7)
    terms = {
        vocabulary: [
            TermFactory(vocabulary=vocabulary, slug=f"{prefix}{i}", label_en=f"{prefix}{i}")
            for i in range(4)
        ]
        for vocabulary, prefix in [
            (Vocabulary.COMPONENT, "c"),
            (Vocabulary.SYMPTOM, "s"),
            (Vocabulary.CONTRIBUTING, "f"),
            (Vocabulary.DOMAIN, "d"),
            (Vocabulary.ROOT_CAUSE, "r"),
        ]
    }
    orgs = [OrganisationFactory(slug=f"o{i}", name=f"Org {i}") for i in range(3)]
    for n in range(60):
        chosen = [
            term
            for vocabulary in (Vocabulary.COMPONENT, Vocabulary.SYMPTOM, Vocabulary.CONTRIBUTING)
            for term in rnd.sample(terms[vocabulary], rnd.randint(0, 2))
        ] + rnd.sample(terms[Vocabulary.DOMAIN], 1)
        CaseFactory(
            public_id=f"IL-{1000 + n}",
            title_en=rnd.choice(["alpha blip", "beta blip", "gamma"]),
            org=rnd.choice(orgs),
            date=datetime.date(2019, 1, 1) + datetime.timedelta(days=rnd.randint(0, 6 * 365)),
            severity=rnd.choice(Case.Severity.values),
            root_cause=rnd.choice(terms[Vocabulary.ROOT_CAUSE] + [None]),
            status=rnd.choice([Case.Status.PUBLISHED] * 4 + [Case.Status.DRAFT]),
            with_terms=chosen,
        )
    refresh_search_text(Case.objects.all())


def facts(case):
    """(facet name, value) pairs a case has."""
    pairs = {("org", case.org.slug), ("severity", case.severity)}
    if case.root_cause:
        pairs.add(("cause", case.root_cause.slug))
    for term in case.terms.all():
        name = next(n for n, v in FACETS.items() if v == term.vocabulary)
        pairs.add((name, term.slug))
    return pairs


def matches(case, query, skip=None):
    """Whether a case passes every filter of the query but `skip`'s, the obvious way."""
    if case.status != Case.Status.PUBLISHED:
        return False
    have = facts(case)
    for name in FACETS:
        wanted = query.getlist(name)
        if name != skip and wanted and not any((name, value) in have for value in wanted):
            return False
    if query.get("from") and case.date < datetime.date.fromisoformat(query["from"]):
        return False
    if query.get("to") and case.date > datetime.date.fromisoformat(query["to"]):
        return False
    return not query.get("q") or query["q"] in case.search_text


def assert_counts_match_counting_by_hand(query_string):
    query = QueryDict(query_string)
    listing = build_listing(CatalogueQuery(query))
    cases = list(Case.objects.select_related("org", "root_cause").prefetch_related("terms"))
    assert listing.page.paginator.count == sum(matches(case, query) for case in cases)
    for facet in listing.facets:
        expected = Counter(
            value
            for case in cases
            if matches(case, query, skip=facet.name)
            for name, value in facts(case)
            if name == facet.name
        )
        shown = {value.slug: value.count for value in facet.values if value.count}
        assert shown == dict(expected), facet.name
    years = Counter(str(case.date.year) for case in cases if matches(case, query))
    chart = listing.charts["years"] or {"columns": []}  # no chart for an empty list
    assert {c["label"]: c["count"] for c in chart["columns"] if c["count"]} == dict(years)
    # and every year between the first and the last, those without cases at zero
    labels = [int(c["label"]) for c in chart["columns"]]
    if labels:
        assert labels == list(range(labels[0], labels[-1] + 1))


def assert_page_is_in_order(query_string, number):
    """The page shows the cases its filters select, in the list's order (SQL's own)."""
    query = QueryDict(query_string, mutable=True)
    query["page"] = str(number)
    catalogue = CatalogueQuery(query)
    listing = build_listing(catalogue)
    ordered = catalogue.cases
    start = (listing.page.number - 1) * 20  # past the last page, the last page
    expected = list(ordered.values_list("public_id", flat=True))[start : start + 20]
    assert [case.public_id for case in listing.page.object_list] == expected
    return expected


@pytest.mark.parametrize("query_string", QUERIES)
def test_facet_counts_match_counting_by_hand(random_library, query_string):
    assert_counts_match_counting_by_hand(query_string)


@pytest.mark.parametrize("query_string", QUERIES)
def test_pages_hold_their_cases_in_order(random_library, query_string):
    first = assert_page_is_in_order(query_string, 1)
    assert_page_is_in_order(query_string, 2)
    assert_page_is_in_order(query_string + "&sort=oldest", 1)
    if not query_string:
        assert len(first) == 20  # the library has a second page: it is checked too


def any_of(name, values):
    return st.lists(st.sampled_from(values), max_size=2, unique=True).map(
        lambda chosen: [(name, value) for value in chosen]
    )


# Any mix of filters over the random library: values that exist and one that does not,
# dates, searches broad and narrow. The library is only read, so examples may share it.
filter_mixes = st.tuples(
    any_of("component", ["c0", "c1", "c2", "c3", "gone"]),
    any_of("symptom", ["s0", "s1", "s2"]),
    any_of("contributing", ["f0", "f1"]),
    any_of("domain", ["d0", "d1"]),
    any_of("cause", ["r0", "r1", "r2"]),
    any_of("org", ["o0", "o1", "o2"]),
    any_of("severity", ["low", "high", "critical"]),
    any_of("from", ["2020-06-01"]),
    any_of("to", ["2023-12-31"]),
    st.sampled_from([[], [("q", "blip")], [("q", "alpha")], [("q", "gamma")]]),
).map(lambda parts: "&".join(f"{name}={value}" for part in parts for name, value in part))


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query_string=filter_mixes)
def test_any_mix_of_filters_counts_and_pages_as_by_hand(random_library, query_string):
    assert_counts_match_counting_by_hand(query_string)
    assert_page_is_in_order(query_string, 1)


def test_counts_follow_every_change(random_library):
    assert_counts_match_counting_by_hand("")  # the index is built here
    reviewer = UserFactory(role="reviewer")
    published = Case.objects.public().order_by("public_id")
    workflow.case_withdraw(case=published[0], user=reviewer, note="Retracted.")
    draft = Case.objects.filter(status=Case.Status.DRAFT).order_by("public_id").first()
    Case.objects.filter(pk=draft.pk).update(status=Case.Status.IN_REVIEW)
    workflow.case_approve(case=Case.objects.get(pk=draft.pk), user=reviewer)
    for query_string in ("", "component=c0", "q=blip", "q=blip&component=c0"):
        assert_counts_match_counting_by_hand(query_string)


def test_the_facet_index_is_built_once_per_change(random_library):
    def listing_queries():
        cache.clear()  # each renders its own cards, which are kept by case and change
        with CaptureQueriesContext(connection) as queries:
            build_listing(CatalogueQuery(QueryDict("component=c0")))
        return len(queries)

    listing_queries()
    built = listing_queries()
    forget()
    assert listing_queries() == built + 3  # cases and their values; organisations; terms
    assert listing_queries() == built
    # A change made outside the workflow is not seen until the version moves.
    term = Term.objects.get(slug="c0")
    case = Case.objects.public().exclude(terms=term).first()
    CaseTerm.objects.create(case=case, term=term, position=99)
    assert listing_queries() == built
    public_content_changed()
    assert listing_queries() > built
    assert_counts_match_counting_by_hand("component=c0")


def test_organisations_are_named_from_the_index(random_library):
    """Every organisation of the facet is named from the facet index, without a query of
    its own; a selected one that no public case has still shows, by its slug, so that it
    can be removed."""
    build_listing(CatalogueQuery(QueryDict("")))  # the index is built here
    with CaptureQueriesContext(connection) as queries:
        facet = next(
            f
            for f in build_listing(CatalogueQuery(QueryDict("org=o1&org=gone"))).facets
            if f.name == "org"
        )
    assert not [q for q in queries if 'FROM "cases_organisation"' in q["sql"]]
    shown = {value.slug: (value.label, value.selected) for value in facet.values}
    assert shown == {
        "o0": ("Org 0", False),
        "o1": ("Org 1", True),
        "o2": ("Org 2", False),
        "gone": ("gone", True),
    }
    assert_counts_match_counting_by_hand("org=o1&component=c0")
