"""The search: words in either language, term labels and aliases, relevance, the pages of
a search in their order, and the filters a query mentions."""

import datetime

import pytest
from django.db import connections
from django.db.models import Case as Conditional
from django.db.models import When

from cases.models import Case
from cases.search.query import search, suggested_filters
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory
from tests.pages import listed_ids

pytestmark = pytest.mark.django_db


def test_search_matches_english_words(client, library):
    assert listed_ids(client.get("/en/cases/?q=throughput")) == ["IL-0002"]
    assert listed_ids(client.get("/en/cases/?q=CHECKPOINT writes")) == ["IL-0004"]


def test_search_matches_korean_inside_words(client, library):
    # The text says 체크포인트를 (with a particle); the query has the bare noun.
    assert listed_ids(client.get("/ko/cases/?q=체크포인트")) == ["IL-0001"]
    assert listed_ids(client.get("/ko/cases/?q=장애")) != []


def test_search_matches_term_labels_and_aliases(client, library):
    # Neither case says HDFS; their component's alias does.
    assert set(listed_ids(client.get("/en/cases/?q=hdfs"))) == {"IL-0002", "IL-0004"}
    assert listed_ids(client.get("/ko/cases/?q=데이터베이스")) == ["IL-0001"]


def test_search_sorts_by_relevance(client, library):
    response = client.get("/en/cases/?q=checkpoint")
    # A title match outranks a match in the Korean summary only.
    assert listed_ids(response)[0] == "IL-0004"
    assert response.context["listing"].sort == "relevance"


SEARCH_ORDERS = {
    "": ("-relevance", "-date", "-public_id"),
    "&sort=newest": ("-date", "-public_id"),
    "&sort=oldest": ("date", "public_id"),
}


@pytest.mark.parametrize("sort", SEARCH_ORDERS)
def test_searched_pages_follow_their_order_from_first_to_last(client, sort):
    org = OrganisationFactory()
    for n in range(45):
        CaseFactory(
            public_id=f"IL-{n:04d}",
            # Every case matches both words; every seventh has both in its title.
            title_en="Checkpoint stall" if n % 7 == 0 else "Write stall",
            title_ko="장애",
            summary_en="The checkpoint writes stalled.",
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=n % 9),
            org=org,
        )
    CaseFactory(public_id="IL-0100", title_en="Unrelated", summary_en="Nothing here.", org=org)
    refresh_search_text(Case.objects.all())
    relevance = Conditional(When(title_en__startswith="Checkpoint", then=2), default=1)
    expected = list(
        Case.objects.exclude(public_id="IL-0100")
        .annotate(relevance=relevance)
        .order_by(*SEARCH_ORDERS[sort])
        .values_list("public_id", flat=True)
    )
    pages = [
        listed_ids(client.get(f"/en/cases/?q=checkpoint+stall{sort}&page={n}")) for n in (1, 2, 3)
    ]
    assert [len(page) for page in pages] == [20, 20, 5]
    assert pages[0] + pages[1] + pages[2] == expected
    # Past the last page, or no page number at all: the last page, and the first.
    assert listed_ids(client.get(f"/en/cases/?q=checkpoint+stall{sort}&page=99")) == pages[2]
    assert listed_ids(client.get(f"/en/cases/?q=checkpoint+stall{sort}&page=x")) == pages[0]


def test_suggested_filters_come_from_the_query(client, library):
    response = client.get("/en/cases/?q=HDFS checkpoint")
    suggestions = [(name, item.slug) for name, item in response.context["listing"].suggestions]
    assert suggestions == [("component", "shared-filesystem")]
    assert 'href="/en/cases/?q=HDFS+checkpoint&amp;component=shared-filesystem"' in (
        response.content.decode()
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("DNS outage", ["dns", "acme-dns"]),  # any case, a whole word
        ("dnssec rollover", []),  # "DNS" inside a word is not DNS
        ("post-dns change", []),  # nor after a hyphen
        ("load balancer", ["load-balancer"]),
        ("로드밸런서가 멈춤", ["load-balancer"]),  # Korean, with its particle
        ("storage", []),  # part of two names, the whole of neither
    ],
)
def test_suggested_filters_name_what_the_query_mentions(query, expected):
    terms = [
        TermFactory(slug="dns", label_en="DNS", label_ko="DNS"),
        TermFactory(slug="load-balancer", label_en="Load balancer", label_ko="로드밸런서"),
        TermFactory(slug="object-storage", label_en="Object storage", label_ko="객체 스토리지"),
    ]
    orgs = [
        OrganisationFactory(slug="acme-dns", name="DNS"),
        OrganisationFactory(slug="storage-co", name="Storage Co"),
    ]
    assert [item.slug for item in suggested_filters(query, terms, orgs)] == expected


def test_korean_suggestion_matches_with_a_particle(client, library):
    response = client.get("/ko/cases/?q=장애 중첩이 있던 사례")
    suggestions = [item.slug for _name, item in response.context["listing"].suggestions]
    assert "overlapping-failures" in suggestions


@pytest.mark.parametrize("vendor", ["postgresql", "sqlite"])
def test_a_search_is_written_for_the_database_its_cases_are_read_from(monkeypatch, vendor):
    # The replica (REPLICA_DATABASE_URL) may be another server than the primary: the
    # search asks the connection its queryset is routed to, not the default one.
    monkeypatch.setattr(connections["replica"], "vendor", vendor)
    query = search(Case.objects.using("replica"), "checkpoint").query
    sql, _params = query.get_compiler("replica").as_sql()
    assert ("search_vector @@" in sql) == (vendor == "postgresql")
