"""A case's page and its JSON: every section, translations, links to other cases, 404 and
410, and the queries a page costs."""

import datetime
import io
import json
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cases.models import Case
from tests.factories import CaseFactory, SourceFactory
from tests.pages import text_of

pytestmark = pytest.mark.django_db


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
    d = CaseFactory(public_id="IL-0004", title_en="Fourth", with_terms=[terms["dns"]])
    cache.clear()  # the page above was cached; this request must render it
    similar = client.get("/en/cases/IL-0003/").context["similar"]
    # IL-0001 shares a term, but the page links it already, as what IL-0003 recurs.
    assert [case.public_id for case in similar] == [d.public_id]
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


def test_case_json_is_what_export_writes(client, seeded, seed_case):
    response = client.get("/ko/cases/IL-0585.json")
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == seed_case


def test_case_page_has_open_graph_tags(client, library):
    html = client.get("/en/cases/IL-0002/").content.decode()
    assert '<meta property="og:title" content="Throughput drops in pretraining">' in html


def count_queries(client, url):
    """The queries of a page as rendered, not as cached."""
    client.get(url)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


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
