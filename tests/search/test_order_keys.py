"""order_keys, which a cached search page and a followed ranking ask after every change,
keeps each plan's SQL: its answers must stay those of the query built afresh, for every
plan, whichever plans were asked before."""

import dataclasses
import datetime

import pytest

from cases.catalogue.ranking import comparable
from cases.models import Case
from cases.search import query as search_query
from cases.search.parsing import parse
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db

QUERIES = [
    "database",
    "database failover",
    '"connection pool"',
    "failover nothingmatches",  # a partial plan, once parse finds no case with both
    "데이터베이스",
    "!!!",  # no words: every public case, ranked alike
]
ORDERINGS = [("-relevance", "-date", "-public_id"), ("date", "public_id")]


@pytest.fixture
def cases():
    org = OrganisationFactory(slug="acme", name="Acme")
    texts = [
        ("Database failover took the site down", "A connection pool ran dry.", "데이터베이스"),
        ("A database upgrade stalled", "Failover was slow.", ""),
        ("Connection pool exhausted", "The pool of database connections ran out.", ""),
        ("DNS outage", "Nothing to do with the others.", "장애"),
    ]
    made = [
        CaseFactory(
            public_id=f"IL-95{n:02}",
            org=org,
            title_en=title,
            summary_en=summary,
            title_ko=korean,
            date=datetime.date(2021, 1, 1) + datetime.timedelta(days=n % 2),
        )
        for n, (title, summary, korean) in enumerate(texts)
    ]
    made.append(CaseFactory(public_id="IL-9599", title_en="Database draft", status="draft"))
    from cases.search.text import refresh_search_text

    refresh_search_text(Case.objects.all())
    return made


def built_afresh(plan, pks, ordering):
    columns = [name.lstrip("-") for name in ordering]
    entries = search_query.matching_entries(plan, "default").filter(case_id__in=pks)
    rows = entries.values_list("case_id", *columns)
    return {pk: comparable(values) for pk, *values in rows}


@pytest.mark.parametrize("ordering", ORDERINGS)
def test_order_keys_answers_as_the_query_built_afresh(cases, ordering):
    pks = [case.pk for case in cases]
    for text in QUERIES * 2:  # the second time from the kept SQL
        plan = parse(text)
        if not plan.partial and text == "failover nothingmatches":
            plan = type(plan)(plan.clauses, partial=True)
        for some in (pks, pks[:2], pks[-2:], [pks[0], pks[0]]):
            found = search_query.order_keys(plan, some, ordering, "default")
            assert {pk: comparable(v) for pk, v in found.items()} == built_afresh(
                plan, some, ordering
            ), text


def test_order_keys_of_no_cases_asks_nothing(cases, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert search_query.order_keys(parse("database"), [], ORDERINGS[0], "default") == {}


def test_a_draft_is_never_found(cases):
    draft = cases[-1]
    assert search_query.order_keys(parse("database"), [draft.pk], ORDERINGS[0], "default") == {}
    found = search_query.order_keys(parse("database"), [cases[0].pk], ORDERINGS[0], "default")
    assert list(found) == [cases[0].pk]


def test_a_named_terms_weight_is_the_same_for_a_few_cases_as_in_the_list(cases):
    """A cached page's check scores the few changed cases with a lookup of each one's terms,
    the list with the term's cases read whole: both must rank alike."""
    term = TermFactory(slug="database-term", label_en="Database")
    tagged, untagged = cases[1], cases[2]  # both say "database"; one carries the term
    tagged.case_terms.create(term=term)
    plan = parse("database")
    plan = dataclasses.replace(
        plan, clauses=(dataclasses.replace(plan.clauses[0], terms=frozenset({term.pk})),)
    )
    ordering = ORDERINGS[0]
    pks = [tagged.pk, untagged.pk]
    found = search_query.order_keys(plan, pks, ordering, "default")
    listed = built_afresh(plan, pks, ordering)
    assert {pk: comparable(v) for pk, v in found.items()} == listed
    assert listed[tagged.pk][0] > listed[untagged.pk][0]  # the term's weight counted
