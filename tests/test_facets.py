"""Facet counts against a count made the slow, obvious way, over a small random library."""

import datetime
import random
from collections import Counter

import pytest
from django.http import QueryDict

from cases.filters import FACETS
from cases.listing import build_listing
from cases.models import Case, Vocabulary
from cases.search import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

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
    # Matches most of the library: PostgreSQL counts its terms as the library's less
    # those of the cases that do not match (cases.facets.term_branches).
    "q=outage",
    "q=outage&symptom=s0",
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
            title_en=rnd.choice(["alpha outage", "beta outage", "gamma"]),
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


@pytest.mark.parametrize("query_string", QUERIES)
def test_facet_counts_match_counting_by_hand(random_library, query_string):
    query = QueryDict(query_string)
    listing = build_listing(query)
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
    assert {c["label"]: c["count"] for c in chart["columns"]} == dict(years)
