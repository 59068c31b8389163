"""The facet index: sets of public cases by facet value, with the public terms and
organisations, built from three queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.catalogue.facet_index import CaseSet, build, overlaps
from cases.models import Case, Vocabulary
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


def test_case_sets_combine_count_and_list_their_cases():
    a, b = CaseSet(0b10110), CaseSet(0b00111)
    assert (a & b).keys() == [1, 2] and (a | b).keys() == [0, 1, 2, 4]
    assert len(a) == a.count() == 3 and bool(a) and not CaseSet()
    assert a & b == CaseSet(0b110) and a != b
    assert CaseSet().keys() == [] and CaseSet(1 << 100_000).keys() == [100_000]
    assert overlaps({"x": a}, {"y": b, "z": CaseSet(0b1000)}) == {("x", "y"): 2}


@pytest.fixture
def library():
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    draft_only = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="draft-only")
    bug = TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug="bug")
    TermFactory(vocabulary=Vocabulary.SYMPTOM, slug="unused")
    acme = OrganisationFactory(slug="acme", name="Acme")
    hidden = OrganisationFactory(slug="hidden", name="Hidden")
    cases = [
        CaseFactory(org=acme, root_cause=bug, severity="high", with_terms=[dns]),
        CaseFactory(org=acme, severity="low", with_terms=[dns]),
        CaseFactory(
            org=hidden, status=Case.Status.DRAFT, published_at=None, with_terms=[draft_only]
        ),
    ]
    return {"dns": dns, "bug": bug, "acme": acme, "cases": cases}


def test_the_index_holds_public_cases_terms_and_organisations(library):
    with CaptureQueriesContext(connection) as queries:
        index = build("default", version=1)
    assert len(queries) == 3  # cases and their values; organisations; terms
    first, second, draft = library["cases"]
    assert index.public.keys() == sorted([first.pk, second.pk])
    assert [term.slug for term in index.terms] == [
        "dns",
        "bug",
    ]  # by vocabulary; no draft's, no unused
    assert index.organisation(library["acme"].pk).name == "Acme"
    assert index.organisation_named("hidden") is None
    assert index.organisation_keys(["acme", "hidden", "nobody"]) == [library["acme"].pk]
    assert index.cases_with_term(library["dns"]).keys() == index.public.keys()
    assert index.cases_with_term(library["bug"]).keys() == [first.pk]
    assert index.cases_with("severity", ["high", "critical"]).keys() == [first.pk]
    assert index.cases([first.pk, draft.pk]).keys() == [first.pk]  # a draft is not public


def test_counts_over_a_selection_and_over_every_case(library):
    index = build("default", version=1)
    first, _second, _draft = library["cases"]
    everything = index.counts(index.public)
    assert everything["term"] == {library["dns"].pk: 2}
    assert everything["org"] == {library["acme"].pk: 2}
    high = index.counts(index.cases([first.pk]), kinds=["severity", "cause"])
    assert high["severity"] == {"high": 1} and high["cause"] == {library["bug"].pk: 1}
    assert high["term"] == {}  # not asked for
