"""Honest languages (#23 point 5): a case page and the sitemap announce a language only where
the case is written in it; a page in another language says so and is canonical to the page
in the written language (cases.public.languages)."""

import itertools
import re
import xml.etree.ElementTree as ET

import pytest
from django.utils.translation import override

from cases.models import Case, CaseRelation
from cases.public.languages import annotated_languages, with_written_languages, written_languages
from tests.factories import CaseFactory, CaseStepFactory, UserFactory
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

SERVER = "http://testserver"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def english_only(**fields):
    return CaseFactory(
        public_id="IL-1010",
        title_en="Resolver outage",
        title_ko="",
        summary_en="The resolvers failed.",
        summary_ko="",
        lessons_en="Watch the **resolvers**.",
        **fields,
    )


def korean_only(**fields):
    return CaseFactory(
        public_id="IL-1020",
        title_en="",
        title_ko="리졸버 장애",
        summary_en="",
        summary_ko="리졸버가 멈췄다.",
        lessons_ko="리졸버를 **지켜보라**.",
        **fields,
    )


def page(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def canonical(html):
    return re.search(r'<link rel="canonical" href="([^"]*)">', html).group(1)


def alternates(html):
    return dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]*)">', html))


def sitemap(client):
    """{location: {hreflang: href}} of every entry of the sitemap."""
    root = ET.fromstring(client.get("/sitemap.xml").content)
    return {
        url.find("s:loc", NS).text: {
            link.get("hreflang"): link.get("href") for link in url.findall("x:link", NS)
        }
        for url in root.findall("s:url", NS)
    }


# --- the finding -----------------------------------------------------------------------------


def test_the_korean_page_of_an_english_only_case_does_not_claim_to_be_korean(client):
    english_only()
    html = page(client, "/ko/cases/IL-1010/")
    assert canonical(html) == f"{SERVER}/en/cases/IL-1010/"
    assert alternates(html) == {
        "en": f"{SERVER}/en/cases/IL-1010/",
        "x-default": f"{SERVER}/cases/IL-1010/",
    }
    assert "이 사례는 아직 한국어로 작성되지 않아 영어로 보여 줍니다." in html
    assert '<h1 id="case-title" lang="en">Resolver outage</h1>' in html
    assert '<div lang="en"><p>The resolvers failed.</p>' in html
    assert '<div lang="en"><p>Watch the <strong>resolvers</strong>.</p>' in html
    # One notice for the page, not one under every text.
    assert "번역이 아직 없어" not in html


def test_the_sitemap_lists_an_english_only_case_only_in_english(client):
    english_only()
    entries = sitemap(client)
    assert f"{SERVER}/ko/cases/IL-1010/" not in entries
    assert entries[f"{SERVER}/en/cases/IL-1010/"] == {
        "en": f"{SERVER}/en/cases/IL-1010/",
        "x-default": f"{SERVER}/cases/IL-1010/",
    }


# --- cases written in both, and in Korean only --------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_case_written_in_both_languages_keeps_both_pages(client, language):
    CaseFactory(public_id="IL-1030")
    html = page(client, f"/{language}/cases/IL-1030/")
    assert canonical(html) == f"{SERVER}/{language}/cases/IL-1030/"
    assert alternates(html) == {
        "en": f"{SERVER}/en/cases/IL-1030/",
        "ko": f"{SERVER}/ko/cases/IL-1030/",
        "x-default": f"{SERVER}/cases/IL-1030/",
    }
    assert 'class="fallback-note' not in html
    entries = sitemap(client)
    assert entries[f"{SERVER}/{language}/cases/IL-1030/"] == alternates(html)


def test_the_english_page_of_a_korean_only_case_is_the_fallback(client):
    korean_only()
    html = page(client, "/en/cases/IL-1020/")
    assert canonical(html) == f"{SERVER}/ko/cases/IL-1020/"
    # No x-default: the address that picks by the browser's language would send most
    # readers to this fallback.
    assert alternates(html) == {"ko": f"{SERVER}/ko/cases/IL-1020/"}
    assert "This case is not yet written in English; it is shown in Korean." in html
    assert '<h1 id="case-title" lang="ko">리졸버 장애</h1>' in html
    assert '<div lang="ko"><p>리졸버가 멈췄다.</p>' in html
    assert '<div lang="ko"><p>리졸버를 <strong>지켜보라</strong>.</p>' in html

    korean = page(client, "/ko/cases/IL-1020/")
    assert canonical(korean) == f"{SERVER}/ko/cases/IL-1020/"
    assert alternates(korean) == {"ko": f"{SERVER}/ko/cases/IL-1020/"}
    assert 'class="fallback-note' not in korean
    assert '<h1 id="case-title">리졸버 장애</h1>' in korean and '<div lang="en">' not in korean


def test_the_sitemap_lists_a_korean_only_case_only_in_korean(client):
    korean_only()
    entries = sitemap(client)
    assert f"{SERVER}/en/cases/IL-1020/" not in entries
    assert entries[f"{SERVER}/ko/cases/IL-1020/"] == {"ko": f"{SERVER}/ko/cases/IL-1020/"}


def test_a_korean_only_case_on_the_english_list_is_marked_korean(client):
    korean_only()
    html = page(client, "/en/cases/")
    assert 'lang="ko">리졸버 장애</a>' in html


def test_a_section_not_yet_translated_in_a_written_case_keeps_its_own_note(client):
    """Written in Korean (title and summary), the lessons still English only: the Korean
    page is Korean and canonical to itself, that one section marked as English."""
    case = CaseFactory(public_id="IL-1040", lessons_en="Keep a spare.", lessons_ko="")
    CaseStepFactory(case=case, kind="remediation", text_en="Restarted.", text_ko="")
    html = page(client, "/ko/cases/IL-1040/")
    assert canonical(html) == f"{SERVER}/ko/cases/IL-1040/"
    assert set(alternates(html)) == {"en", "ko", "x-default"}
    assert "번역이 아직 없어 영어로 보여 줍니다." in html
    assert '<div lang="en"><p>Keep a spare.</p>' in html
    assert '<li lang="en"><p>Restarted.</p>' in html
    assert "아직 한국어로 작성되지 않아" not in html


def test_a_related_case_shown_in_another_language_is_marked_so(client):
    both = CaseFactory(public_id="IL-1050")
    CaseRelation.objects.create(from_case=both, to_case=english_only(), position=0)
    html = page(client, "/ko/cases/IL-1050/")
    assert 'IL-1010: <span lang="en">Resolver outage</span></a>' in html
    assert canonical(html) == f"{SERVER}/ko/cases/IL-1050/"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_lists_and_other_pages_keep_both_languages(client, language):
    english_only()
    for url in (f"/{language}/cases/", f"/{language}/graph/"):
        html = page(client, url)
        assert set(alternates(html)) == {"en", "ko", "x-default"}
        assert canonical(html) == f"{SERVER}{url}"
    entries = sitemap(client)
    assert f"{SERVER}/{language}/cases/" in entries


# --- the rule -------------------------------------------------------------------------------

PRESENT = [None, "", "text"]


def test_the_query_and_the_loaded_case_apply_the_same_rule():
    """Every combination of a title and a summary present, empty or NULL in each language:
    the sitemap's condition and the page's reading agree, and every case with a title is
    written in some language."""
    combinations = list(itertools.product(PRESENT, repeat=4))
    for n, (title_en, title_ko, summary_en, summary_ko) in enumerate(combinations):
        CaseFactory(
            public_id=f"IL-{n + 2000:04d}",
            title_en=title_en,
            title_ko=title_ko,
            summary_en=summary_en,
            summary_ko=summary_ko,
        )
    for case in with_written_languages(Case.objects.all()):
        written = written_languages(case)
        assert annotated_languages(case) == written, case.public_id
        assert bool(written) == bool(case.title_en or case.title_ko)


@pytest.mark.parametrize(
    ("texts", "written"),
    [
        ({}, ["en", "ko"]),
        ({"title_ko": ""}, ["en"]),
        ({"summary_ko": ""}, ["en"]),
        ({"title_en": "", "summary_en": ""}, ["ko"]),
        ({"summary_en": "", "summary_ko": ""}, ["en", "ko"]),  # no summary at all
        ({"summary_en": "", "summary_ko": "", "title_ko": ""}, ["en"]),
        ({"title_ko": "", "summary_en": ""}, ["en"]),  # mixed: the title's language
    ],
)
def test_a_case_is_written_in_the_languages_of_its_title_and_summary(texts, written):
    assert written_languages(CaseFactory.build(**texts)) == written


# --- the sitemap's cost ------------------------------------------------------------------------


def test_the_sitemap_costs_the_same_few_queries_however_many_cases(
    client, django_assert_max_num_queries
):
    def make(count, offset):
        for n in range(count):
            texts = [{}, {"title_ko": ""}, {"title_en": "", "summary_en": ""}][n % 3]
            CaseFactory(public_id=f"IL-{offset + n:04d}", **texts)

    make(3, 3000)
    with django_assert_max_num_queries(3) as few:
        client.get("/sitemap.xml")
    make(30, 4000)
    with django_assert_max_num_queries(len(few.captured_queries)):
        entries = sitemap(client)
    # 11 of 33 in each language alone, 11 in both: 22 in each language.
    assert sum("/en/cases/IL-" in location for location in entries) == 22
    assert sum("/ko/cases/IL-" in location for location in entries) == 22


# --- adding the missing language through the workflow -----------------------------------------


def test_the_korean_page_is_renewed_when_the_korean_is_written_and_approved(client):
    case = english_only()
    editor, reviewer = UserFactory(role="editor"), UserFactory(role="reviewer")
    assert client.get("/ko/cases/IL-1010/")["X-Cache"] == "miss"
    cached = client.get("/ko/cases/IL-1010/")
    assert cached["X-Cache"] == "hit"
    assert canonical(cached.content.decode()) == f"{SERVER}/en/cases/IL-1010/"

    approve_edit(case, editor, reviewer, title_ko="리졸버 장애", summary_ko="리졸버가 멈췄다.")

    response = client.get("/ko/cases/IL-1010/")
    html = response.content.decode()
    assert response["X-Cache"] == "miss"
    assert canonical(html) == f"{SERVER}/ko/cases/IL-1010/"
    assert set(alternates(html)) == {"en", "ko", "x-default"}
    assert '<h1 id="case-title">리졸버 장애</h1>' in html
    assert "아직 한국어로 작성되지 않아" not in html
    assert f"{SERVER}/ko/cases/IL-1010/" in sitemap(client)


def test_the_notice_is_in_the_pages_language():
    from cases.public.languages import NOT_WRITTEN_NOTICES

    with override("ko"):
        assert str(NOT_WRITTEN_NOTICES["ko", "en"]) == (
            "이 사례는 아직 한국어로 작성되지 않아 영어로 보여 줍니다."
        )
    with override("en"):
        assert str(NOT_WRITTEN_NOTICES["en", "ko"]) == (
            "This case is not yet written in English; it is shown in Korean."
        )
