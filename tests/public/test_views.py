"""The public list in HTML and JSON, its feeds and addresses: filters, facets, pages, bad
input and the queries a list costs."""

import re

import pytest
from django.core.cache import cache
from django.db import connection

from cases.caching import public_content_changed
from cases.catalogue.checklist import CHECK_QUERIES
from cases.catalogue.listing import cards
from cases.catalogue.ranking import forget as forget_searches
from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory, TermFactory
from tests.pages import listed_ids, text_of

pytestmark = pytest.mark.django_db


# --- the list ----------------------------------------------------------------------


def test_list_shows_published_cases_newest_first(client, library):
    response = client.get("/en/cases/")
    assert response.status_code == 200
    assert listed_ids(response) == ["IL-0002", "IL-0001", "IL-0003", "IL-0004"]
    assert "A draft nobody may see" not in response.content.decode()
    assert "Showing 1–4 of 4" in text_of(response)


def test_home_page_is_the_list(client, library):
    assert listed_ids(client.get("/en/")) == listed_ids(client.get("/en/cases/"))


def test_oldest_first_sort(client, library):
    assert listed_ids(client.get("/en/cases/?sort=oldest"))[0] == "IL-0004"


def test_values_of_one_facet_are_or_and_facets_are_and(client, library):
    either = client.get("/en/cases/?component=dns&component=shared-filesystem")
    assert set(listed_ids(either)) == {"IL-0002", "IL-0003", "IL-0004"}
    both = client.get("/en/cases/?component=shared-filesystem&contributing=overlapping-failures")
    assert listed_ids(both) == ["IL-0002"]
    by_org = client.get("/en/cases/?org=meta&severity=critical")
    assert listed_ids(by_org) == ["IL-0003"]


def test_cause_and_date_filters(client, library):
    assert listed_ids(client.get("/en/cases/?cause=software-bug")) == ["IL-0001"]
    ranged = client.get("/en/cases/?from=2020-01-01&to=2024-12-31")
    assert listed_ids(ranged) == ["IL-0001", "IL-0003"]


def test_facet_counts_ignore_their_own_selection(client, library):
    response = client.get("/en/cases/?component=dns")
    facets = {facet.name: facet for facet in response.context["listing"].facets}
    components = {v.slug: v.count for v in facets["component"].values}
    # Choosing DNS does not hide the other components: their counts are over every case.
    assert components == {"shared-filesystem": 2, "application-database": 1, "dns": 1}
    # Other facets count within the DNS cases only.
    assert {v.slug: v.count for v in facets["org"].values} == {"meta": 1}
    assert [v.slug for v in facets["contributing"].shown] == []


def test_facet_counts_count_every_case(client, library):
    facets = {f.name: f for f in client.get("/en/cases/").context["listing"].facets}
    assert {v.slug: v.count for v in facets["org"].values} == {"hugging-face": 2, "meta": 2}
    components = {v.slug: v.count for v in facets["component"].values}
    assert components == {"shared-filesystem": 2, "application-database": 1, "dns": 1}
    # The same term at different positions in different cases is still one count.
    assert {v.slug: v.count for v in facets["contributing"].values} == {"overlapping-failures": 2}


def test_zero_count_terms_are_hidden(client, library):
    TermFactory(vocabulary=Vocabulary.COMPONENT, slug="unused-term", label_en="Never used")
    assert "Never used" not in client.get("/en/cases/").content.decode()


def test_chips_remove_one_filter_each_and_clear_all(client, library):
    response = client.get("/en/cases/?component=dns&org=meta&q=bgp")
    html = response.content.decode()
    assert 'href="/en/cases/?org=meta&amp;q=bgp"' in html  # removes DNS only
    assert 'href="/en/cases/?component=dns&amp;q=bgp"' in html  # removes Meta only
    assert 'href="/en/cases/?component=dns&amp;org=meta"' in html  # removes the search
    assert re.search(r'class="clear-all" href="/en/cases/"', html)


def test_filter_only_page_says_what_it_is_in_korean(client, library):
    response = client.get("/ko/cases/?contributing=overlapping-failures&org=hugging-face")
    text = text_of(response)
    assert "적용된 필터" in text and "모두 풀기" in text
    assert "검색어 없이 필터만 적용한 목록입니다. 최근 사례부터입니다." in text
    assert "2건 중 1~2번째" in text
    assert "장애 중첩" in text
    assert "이 2건에서 가장 많이 나오는 구성 요소:" in text


def test_pagination_keeps_the_filters(client, terms):
    for n in range(25):
        CaseFactory(public_id=f"IL-{1000 + n}", with_terms=[terms["dns"]])
    first = client.get("/en/cases/?component=dns")
    assert len(listed_ids(first)) == 20
    assert 'href="?component=dns&amp;page=2"' in first.content.decode()
    second = client.get("/en/cases/?component=dns&page=2")
    assert len(listed_ids(second)) == 5
    assert "Showing 21–25 of 25" in text_of(second)


# --- bad input ---------------------------------------------------------------------

BAD_QUERIES = [
    "component=no-such-term",
    "component=NOT A SLUG",
    "component=",
    "component=dns&component=dns",
    "page=abc",
    "page=999999",
    "page=-1",
    "q=checkpoint&page=99999999999999999999999",
    "q=checkpoint&page=1000001",
    "q=checkpoint&page=%EF%BC%92",
    "from=2019-13-45",
    "to=yesterday",
    "from=99999-01-01",
    "q=" + "x" * 10_000,
    "q=%00%00",
    "q=a%00b",
    "org=%00",
    "component=%00&symptom=a%00b",
    "cause=x%00&org=hugging-face%00",
    "q=%22%27%3Cscript%3Ealert(1)%3C/script%3E",
    "severity=catastrophic",
    "sort=%3Cb%3E",
    "q=%E2%80%AE",
    "q=%ff%fe",
    "cause[]=x&&&=&",
    "component=" + "a" * 5000,
]


@pytest.mark.parametrize("query", BAD_QUERIES)
def test_no_query_string_breaks_the_list(client, library, query):
    for path in ("/en/cases/", "/ko/cases.json"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 200, (path, query)
    assert "<script>alert(1)" not in client.get(f"/en/cases/?{query}").content.decode()


def test_unknown_value_gives_an_empty_list_with_a_clear_word(client, library):
    response = client.get("/en/cases/?component=no-such-term")
    assert listed_ids(response) == []
    assert "No case has the component “no-such-term”." in text_of(response)


def test_bad_date_gives_an_empty_list_and_says_why(client, library):
    response = client.get("/en/cases/?from=2019-13-45")
    assert listed_ids(response) == []
    assert "“2019-13-45” is not a date in the form YYYY-MM-DD." in text_of(response)


def test_case_text_is_escaped(client, terms):
    CaseFactory(
        public_id="IL-0099", title_en='<script>alert("x")</script>', summary_en="<b>bold</b>"
    )
    html = (
        client.get("/en/cases/").content.decode()
        + client.get("/en/cases/IL-0099/").content.decode()
    )
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "<b>bold</b>" not in html


# --- query counts -----------------------------------------------------------------


# Each list page's queries as rendered, not as cached, once this process's facet index is of
# the current content (it is built once per change: see tests/catalogue/test_facets.py).
# Every one reads the content's version; a list then reads its page's keys (unless a search
# tells them), its cases, their terms and steps; its JSON counts and reads its page's keys,
# then the cases in the exchange format (terms, steps, sources, relations). A search turns
# PostgreSQL's sequential scans off and on again: two more.
# The HTML lists' cases have a contributing factor: their "Check your own system" costs
# CHECK_QUERIES more.
LIST_QUERIES = {
    "/en/cases/": 5 + CHECK_QUERIES,
    "/en/cases/?component=dns&org=acme": 5 + CHECK_QUERIES,
    "/en/cases/?component=dns&contributing=overlapping-failures&q=case": 5 + CHECK_QUERIES,
    "/en/cases.json?component=dns": 8,
    # A search's page of keys and its count come from one query, as the HTML list's do.
    "/en/cases.json?q=case": 7,
}


def searched(url):
    return 2 if "q=" in url and connection.vendor == "postgresql" else 0


def test_list_query_count_does_not_grow_with_the_page(client, terms, django_assert_num_queries):
    def assert_queries(url):
        client.get(url)
        cache.clear()
        forget_searches()  # a search ranked afresh, as after a change of everything
        with django_assert_num_queries(LIST_QUERIES[url] + searched(url)):
            assert client.get(url).status_code == 200

    acme = OrganisationFactory(slug="acme")
    CaseFactory(public_id="IL-0001", org=acme, with_terms=[terms["dns"], terms["overlap"]])
    refresh_search_text(Case.objects.all())
    for url in LIST_QUERIES:
        assert_queries(url)
    for n in range(2, 30):
        case = CaseFactory(
            public_id=f"IL-{n:04d}", org=acme, with_terms=[terms["dns"], terms["database"]]
        )
        CaseStepFactory(case=case)
    refresh_search_text(Case.objects.all())
    public_content_changed()  # as every change through the workflow does
    for url in LIST_QUERIES:
        assert_queries(url)


def test_cards_take_terms_the_list_does_not_know_yet_from_the_database(terms):
    case = CaseFactory(root_cause=terms["bug"], with_terms=[terms["dns"], terms["overlap"]])
    known = [terms["dns"]]  # as if the others were added after the list's terms were cached
    (card,) = cards([case.pk], known)
    assert card.component_terms == [terms["dns"]]
    assert card.contributing_terms == [terms["overlap"]]
    assert card.cause_terms == [terms["bug"]]


# --- JSON, feeds and addresses ---------------------------------------------------


def test_list_json_is_filtered_and_paginated(client, terms):
    for n in range(23):
        CaseFactory(public_id=f"IL-{n + 1:04d}", with_terms=[terms["dns"]])
    CaseFactory(public_id="IL-0100")
    data = client.get("/en/cases.json?component=dns").json()
    assert data["count"] == 23 and data["pages"] == 2 and len(data["results"]) == 20
    assert data["next"] == "http://testserver/en/cases.json?component=dns&page=2"
    assert all(case["components"] == ["dns"] for case in data["results"])
    assert client.get(data["next"]).json()["previous"].endswith("component=dns&page=1")


def test_atom_feed_lists_published_cases(client, library):
    response = client.get("/en/feed.atom")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<feed" in body and "Throughput drops in pretraining" in body
    assert "A draft nobody may see" not in body


def test_sitemap_and_robots(client, library):
    sitemap = client.get("/sitemap.xml").content.decode()
    assert "http://testserver/en/cases/IL-0001/" in sitemap
    assert 'hreflang="ko" href="http://testserver/ko/cases/IL-0001/"' in sitemap
    assert "IL-0005" not in sitemap
    robots = client.get("/robots.txt").content.decode()
    assert "Sitemap: http://testserver/sitemap.xml" in robots


def test_root_redirects_by_the_browsers_language(client):
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9").url == "/ko/cases/"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="en-US").url == "/en/cases/"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="fr").url == "/en/cases/"


def test_language_switch_keeps_the_page_and_its_filters(client, library):
    html = client.get("/en/cases/?component=dns&q=bgp").content.decode()
    assert 'href="/ko/cases/?component=dns&amp;q=bgp" hreflang="ko"' in html
    assert (
        '<link rel="alternate" hreflang="ko" href="http://testserver/ko/cases/?component=dns&amp;q=bgp">'
        in html
    )
    detail = client.get("/ko/cases/IL-0001/").content.decode()
    assert 'href="/en/cases/IL-0001/" hreflang="en"' in detail
    assert '<link rel="canonical" href="http://testserver/ko/cases/IL-0001/">' in detail


def test_long_facets_show_the_most_frequent_values_first(client, terms):
    for n in range(20):
        CaseFactory(
            public_id=f"IL-{n + 1:04d}",
            org=OrganisationFactory(name=f"Org {n:02d}", slug=f"org-{n:02d}"),
        )
    response = client.get("/en/cases/?org=org-19")
    org = next(f for f in response.context["listing"].facets if f.name == "org")
    assert len(org.shown) == 13 and org.hidden_count == 7
    assert "org-19" in [v.slug for v in org.shown]  # a selected value always shows
    assert "Show 7 more" in response.content.decode()
    expanded = client.get("/en/cases/?org=org-19&expand=org")
    org = next(f for f in expanded.context["listing"].facets if f.name == "org")
    assert len(org.shown) == 20
