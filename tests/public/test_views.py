import datetime
import io
import json
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.db.models import Case as Conditional
from django.db.models import When
from django.test.utils import CaptureQueriesContext

from cases.caching import public_content_changed
from cases.catalogue.listing import cards
from cases.models import Case, Vocabulary
from cases.search.planner import uses_search_index
from cases.search.query import suggested_filters
from cases.search.text import refresh_search_text
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    OrganisationFactory,
    SourceFactory,
    TermFactory,
)

pytestmark = pytest.mark.django_db


def text_of(response):
    html = response.content.decode()
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def listed_ids(response):
    return [case.public_id for case in response.context["page"].object_list]


@pytest.fixture
def terms():
    return {
        "dns": TermFactory(
            vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS", label_ko="DNS"
        ),
        "database": TermFactory(
            vocabulary=Vocabulary.COMPONENT,
            slug="application-database",
            label_en="Application database",
            label_ko="애플리케이션 데이터베이스",
        ),
        "storage": TermFactory(
            vocabulary=Vocabulary.COMPONENT,
            slug="shared-filesystem",
            label_en="Shared filesystem",
            label_ko="공유 파일 시스템",
            aliases_en="HDFS\nNFS",
        ),
        "overlap": TermFactory(
            vocabulary=Vocabulary.CONTRIBUTING,
            slug="overlapping-failures",
            label_en="Overlapping failures",
            label_ko="장애 중첩",
        ),
        "bug": TermFactory(
            vocabulary=Vocabulary.ROOT_CAUSE, slug="software-bug", label_en="Software bug"
        ),
    }


@pytest.fixture
def library(terms):
    """Four published cases and one draft, with search text."""
    hf = OrganisationFactory(name="Hugging Face", slug="hugging-face")
    meta = OrganisationFactory(name="Meta", slug="meta")
    cases = {
        "a": CaseFactory(
            public_id="IL-0001",
            org=hf,
            date=datetime.date(2024, 4, 22),
            title_en="Hub outage under heavy API requests",
            title_ko="무거운 API 요청으로 Hub 장애",
            summary_ko="체크포인트를 만들지 못했다.",
            root_cause=terms["bug"],
            with_terms=[terms["database"], terms["overlap"]],
        ),
        "b": CaseFactory(
            public_id="IL-0002",
            org=hf,
            date=datetime.date(2025, 10, 30),
            title_en="Throughput drops in pretraining",
            with_terms=[terms["storage"], terms["overlap"]],
        ),
        "c": CaseFactory(
            public_id="IL-0003",
            org=meta,
            date=datetime.date(2021, 10, 4),
            title_en="BGP withdrawal took the backbone down",
            severity="critical",
            with_terms=[terms["dns"]],
        ),
        "d": CaseFactory(
            public_id="IL-0004",
            org=meta,
            date=datetime.date(2019, 1, 1),
            title_en="Checkpoint writes failed",
            with_terms=[terms["storage"]],
        ),
        "draft": CaseFactory(
            public_id="IL-0005",
            status=Case.Status.DRAFT,
            published_at=None,
            title_en="A draft nobody may see",
            with_terms=[terms["dns"]],
        ),
    }
    refresh_search_text(Case.objects.all())
    return cases


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


# --- search ------------------------------------------------------------------------


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


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
@pytest.mark.parametrize("path", ["/en/cases/", "/en/cases.json", "/en/graph.json"])
def test_searches_are_planned_without_scanning_every_case(client, library, path):
    # With most of 100,000 cases matching, PostgreSQL would scan them all, reading each
    # vector back from TOAST: twice as slow as its GIN index (see `make bench`). A plan's
    # choice shows only at that size, so this checks what the planner is told.
    # Nor is a query compiled (JIT) for the "disabled" cost of a table only a scan reads.
    settings = []

    def show(cursor):
        cursor.execute("SELECT current_setting('enable_seqscan'), current_setting('jit')")
        return cursor.fetchone()

    def record(execute, sql, params, many, context):
        if "search_vector @@" in sql or "cases_organisation" in sql:
            settings.append(show(context["cursor"]))
        return execute(sql, params, many, context)

    with connection.cursor() as cursor:
        before = show(cursor)
    with connection.execute_wrapper(record):
        assert client.get(f"{path}?q=checkpoint").status_code == 200
    assert settings and set(settings) == {("off", "off")}
    with connection.cursor() as cursor:
        assert show(cursor) == before == ("on", before[1])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
@pytest.mark.parametrize("path", ["/en/cases/", "/en/cases.json", "/en/graph.json"])
def test_a_search_matching_every_case_reads_them_by_the_search_index(client, path):
    # Knowing that a search matches every case, PostgreSQL would rather read the public
    # cases by the status index and test each one's vector, read back from TOAST: at
    # 10,000 cases 44 ms against 12 by the search index. It does so here at 150.
    org = OrganisationFactory()
    CaseFactory.create_batch(150, org=org, summary_en="The checkpoint writes stalled.")
    refresh_search_text(Case.objects.all())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"{path}?q=checkpoint").status_code == 200
    searches = [q["sql"] for q in queries if "search_vector @@" in q["sql"]]
    assert searches
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")  # as for the request (uses_search_index)
        for search in searches:
            cursor.execute(f"EXPLAIN {search}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Bitmap Index Scan on case_search_vector" in plan
            assert "case_status" not in plan
        cursor.execute("RESET enable_seqscan")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
def test_a_search_of_punctuation_alone_lists_by_the_indexes_as_no_search_does(client):
    # It looks for no word, so nothing narrows the cases but their status.
    CaseFactory.create_batch(150, org=OrganisationFactory())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE cases_case")
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/en/cases.json?q=%3F%3F%3F").status_code == 200
    reads = [q["sql"] for q in queries if 'FROM "cases_case"' in q["sql"]]
    assert reads
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        for sql in reads:
            cursor.execute(f"EXPLAIN {sql}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Seq Scan on cases_case" not in plan, plan
        cursor.execute("RESET enable_seqscan")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
def test_a_failed_search_leaves_sequential_scans_on(rf):
    @uses_search_index
    def failing(request):
        raise ValueError("the view broke")

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        jit = cursor.fetchone()[0]
    with pytest.raises(ValueError):
        failing(rf.get("/en/cases/?q=checkpoint"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_seqscan'), current_setting('jit')")
        assert cursor.fetchone() == ("on", jit)


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


def count_queries(client, url):
    """The queries of a page as rendered, not as cached, once this process's facet index
    is of the current content (it is built once per change: see tests/test_facets.py)."""
    client.get(url)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_list_query_count_does_not_grow_with_the_page(client, terms):
    CaseFactory(public_id="IL-0001", with_terms=[terms["dns"], terms["overlap"]])
    refresh_search_text(Case.objects.all())
    urls = [
        "/en/cases/",
        "/en/cases/?component=dns&org=organisation-0",
        "/en/cases/?component=dns&contributing=overlapping-failures&q=case",
        "/en/cases.json?component=dns",
    ]
    one = [count_queries(client, url) for url in urls]
    for n in range(2, 30):
        case = CaseFactory(public_id=f"IL-{n:04d}", with_terms=[terms["dns"], terms["database"]])
        CaseStepFactory(case=case)
    refresh_search_text(Case.objects.all())
    public_content_changed()  # as every change through the workflow does
    many = [count_queries(client, url) for url in urls]
    assert one == many
    assert max(many) <= 12


def test_cards_take_terms_the_list_does_not_know_yet_from_the_database(terms):
    case = CaseFactory(root_cause=terms["bug"], with_terms=[terms["dns"], terms["overlap"]])
    known = [terms["dns"]]  # as if the others were added after the list's terms were cached
    (card,) = cards([case.pk], known)
    assert card.component_terms == [terms["dns"]]
    assert card.contributing_terms == [terms["overlap"]]
    assert card.cause_terms == [terms["bug"]]


def test_case_page_query_count_is_bounded(client, terms):
    case = CaseFactory(public_id="IL-0001", with_terms=[terms["dns"], terms["database"]])
    SourceFactory(case=case)
    for n in range(2, 12):
        other = CaseFactory(public_id=f"IL-{n:04d}", with_terms=[terms["dns"]])
        case.related.add(other, through_defaults={"position": n})
    case.recurrence_of = CaseFactory(public_id="IL-0100")
    case.save()
    CaseFactory(public_id="IL-0101", recurrence_of=case)
    other.related.add(case, through_defaults={"position": 0})
    page = client.get("/en/cases/IL-0001/").content.decode()
    assert all(f"IL-{n:04d}" in page for n in [*range(2, 12), 100, 101])
    assert count_queries(client, "/en/cases/IL-0001/") <= 10
    assert count_queries(client, "/en/cases/IL-0001.json") <= 6


# --- the case page ----------------------------------------------------------------


@pytest.fixture
def seeded(seed_case, write_json):
    call_command("load_taxonomy", "data/taxonomy.json", stdout=io.StringIO())
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    return Case.objects.get(public_id="IL-0585")


def test_case_page_shows_every_section_in_order(client, seeded):
    text = text_of(client.get("/en/cases/IL-0585/"))
    headings = [
        "Summary",
        "Symptoms",
        "Trigger",
        "Cause",
        "Components",
        "Detection",
        "Lessons",
        "Impact",
        "Timeline",
        "Sources",
        "Documentation",
        "Cite this case",
    ]
    positions = [text.index(heading) for heading in headings]
    assert positions == sorted(positions)
    assert "Report published" in text and "2019-08-08" in text
    assert "16.33% of the GPU time" in text
    assert "Not yet reviewed by a person" in text


def test_case_page_in_korean_uses_the_seed_words(client, seeded):
    text = text_of(client.get("/ko/cases/IL-0585/"))
    for word in ("증상", "촉발", "원인", "구성 요소", "감지", "교훈", "공유 파일 시스템"):
        assert word in text
    assert "아직 사람이 검토하지 않았습니다" in text


def test_missing_korean_falls_back_to_english_with_a_note(client, seeded):
    seeded.lessons_ko = ""
    seeded.save()
    response = client.get("/ko/cases/IL-0585/")
    html = response.content.decode()
    assert "번역이 아직 없어 영어로 보여 줍니다." in html
    assert '<div lang="en"><p>Infrastructure failures such as checkpoint errors' in html


def test_sources_open_safely(client, seeded):
    html = client.get("/en/cases/IL-0585/").content.decode()
    assert re.search(r'<a href="https://arxiv.org/abs/1901.05758" rel="noopener noreferrer"', html)
    assert "web.archive.org" in html and "paper" in html


def test_review_state_names_the_reviewer(client, seeded):
    seeded.reviewed_by = "Kim Editor"
    seeded.reviewed_at = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    seeded.save()
    assert "Reviewed by Kim Editor on 2026-01-02" in text_of(client.get("/en/cases/IL-0585/"))


def test_cite_this_case(client, seeded):
    text = client.get("/en/cases/IL-0585/").content.decode()
    assert "@misc{IL-0585," in text
    assert "http://testserver/en/cases/IL-0585/" in text


def test_related_cases_show_from_both_sides_and_similar_cases(client, terms):
    a = CaseFactory(
        public_id="IL-0001", title_en="First", with_terms=[terms["dns"], terms["overlap"]]
    )
    b = CaseFactory(public_id="IL-0002", title_en="Second")
    c = CaseFactory(
        public_id="IL-0003", title_en="Third", recurrence_of=a, with_terms=[terms["dns"]]
    )
    a.related.add(b, through_defaults={"position": 0})
    assert "IL-0002: Second" in text_of(client.get("/en/cases/IL-0001/"))
    assert "IL-0001: First" in text_of(client.get("/en/cases/IL-0002/"))
    third = text_of(client.get("/en/cases/IL-0003/"))
    assert "Recurrence of IL-0001: First" in third
    assert "Recurred as IL-0003: Third" in text_of(client.get("/en/cases/IL-0001/"))
    cache.clear()  # the page above was cached; this request must render it
    similar = client.get("/en/cases/IL-0003/").context["similar"]
    assert [case.public_id for case in similar] == [a.public_id]
    assert c not in similar


def test_related_cases_keep_their_order_show_once_and_only_when_published(client):
    case = CaseFactory(public_id="IL-0001")
    later, earlier, linking = (CaseFactory(public_id=f"IL-000{n}") for n in (2, 3, 4))
    draft = CaseFactory(public_id="IL-0005", status=Case.Status.DRAFT, published_at=None)
    case.related.add(later, through_defaults={"position": 1})
    case.related.add(earlier, through_defaults={"position": 0})
    case.related.add(draft, through_defaults={"position": 2})
    linking.related.add(case, through_defaults={"position": 0})
    later.related.add(case, through_defaults={"position": 0})  # linked both ways
    case.recurrence_of = CaseFactory(
        public_id="IL-0006", status=Case.Status.WITHDRAWN, published_at=None
    )
    case.save()
    CaseFactory(public_id="IL-0007", recurrence_of=case)
    CaseFactory(public_id="IL-0008", recurrence_of=case, status=Case.Status.DRAFT)
    context = client.get("/en/cases/IL-0001/").context
    assert [c.public_id for c in context["related"]] == ["IL-0003", "IL-0002", "IL-0004"]
    assert context["recurrence_of"] is None
    assert [c.public_id for c in context["recurrences"]] == ["IL-0007"]


def test_similar_cases_count_shared_terms_among_each_terms_recent_cases(client, terms, monkeypatch):
    CaseFactory(public_id="IL-0001", with_terms=[terms["dns"], terms["overlap"]])
    for n in range(2, 5):  # three later cases with DNS only
        CaseFactory(public_id=f"IL-000{n}", with_terms=[terms["dns"]])
    CaseFactory(public_id="IL-0009", with_terms=[terms["dns"], terms["overlap"]])

    def similar():
        cache.clear()
        return [c.public_id for c in client.get("/en/cases/IL-0009/").context["similar"]]

    # Both terms shared beats one.
    assert similar()[0] == "IL-0001"
    assert set(similar()) == {"IL-0001", "IL-0002", "IL-0003", "IL-0004"}
    # A common term offers only its most recent cases: the work stays bounded.
    monkeypatch.setattr("cases.public.views.SIMILAR_CANDIDATES", 2)
    assert set(similar()) == {"IL-0001", "IL-0003", "IL-0004"}


def test_unknown_or_unpublished_case_is_404_and_withdrawn_is_410(client, terms):
    CaseFactory(public_id="IL-0001", status=Case.Status.DRAFT, published_at=None)
    CaseFactory(public_id="IL-0002", status=Case.Status.IN_REVIEW, published_at=None)
    CaseFactory(public_id="IL-0003", status=Case.Status.WITHDRAWN, published_at=None)
    for url in (
        "/en/cases/IL-0001/",
        "/en/cases/IL-0002/",
        "/en/cases/IL-9999/",
        "/en/cases/IL-1/",
    ):
        assert client.get(url).status_code == 404
    gone = client.get("/ko/cases/IL-0003/")
    assert gone.status_code == 410
    assert "철회" in text_of(gone)
    assert client.get("/en/cases/IL-0003.json").status_code == 410
    assert client.get("/en/cases/IL-0001.json").status_code == 404


# --- JSON, feeds and addresses ---------------------------------------------------


def test_case_json_is_what_export_writes(client, seeded, seed_case):
    response = client.get("/ko/cases/IL-0585.json")
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == seed_case


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


def test_case_page_has_open_graph_tags(client, library):
    html = client.get("/en/cases/IL-0002/").content.decode()
    assert '<meta property="og:title" content="Throughput drops in pretraining">' in html


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
