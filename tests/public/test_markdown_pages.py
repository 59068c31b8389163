"""Markdown on the public pages: the case page, the list's cards, the staff preview, the
feed and the descriptions; the fallback to English marked as before."""

import re
import xml.etree.ElementTree as ElementTree

import pytest

from cases.models import CaseStep
from tests.factories import CaseFactory, CaseStepFactory, UserFactory

pytestmark = pytest.mark.django_db

SUMMARY_EN = (
    "The queue filled up for **three** reasons:\n\n"
    "- a slow consumer\n"
    "- a retry storm, see [the postmortem](https://example.org/pm)\n\n"
    "It took `kubectl rollout undo` to stop it."
)
SUMMARY_KO = (
    "큐가 **세 가지** 이유로 가득 찼다:\n\n"
    "- 느린 소비자\n"
    "- 재시도 폭주, [사후 분석](https://example.org/pm) 참고\n\n"
    "`kubectl rollout undo` 로 멈췄다."
)
LINK = '<a href="https://example.org/pm" rel="nofollow noopener">'
QUEUE_LINK = '<a href="https://example.org/q" rel="nofollow noopener">'


@pytest.fixture
def markdown_case():
    case = CaseFactory(
        public_id="IL-0700",
        title_en="Queue backlog",
        summary_en=SUMMARY_EN,
        summary_ko=SUMMARY_KO,
        symptoms_text_en="Deploys stalled:\n\n1. builds queued\n2. then *timed out*",
        symptoms_text_ko="배포가 멈췄다:\n\n1. 빌드가 쌓였다\n2. 그리고 *시간 초과*",
        lessons_en="Watch the [queue depth](https://example.org/q).",
        lessons_ko="",
    )
    CaseStepFactory(
        case=case,
        kind=CaseStep.Kind.REMEDIATION,
        text_en="Drained the queue:\n\n- paused producers\n- scaled consumers",
        text_ko="큐를 비웠다:\n\n- 생산자 중지\n- 소비자 증설",
    )
    return case


def test_the_case_page_shows_lists_and_links_not_one_paragraph(client, markdown_case):
    """The finding: blank lines, lists and links collapsed into plain paragraphs."""
    html = client.get("/en/cases/IL-0700/").content.decode()
    assert "<li>a slow consumer</li>" in html
    assert f"{LINK}the postmortem</a>" in html
    assert "<strong>three</strong>" in html and "<code>kubectl rollout undo</code>" in html
    assert "- a slow consumer" not in html and "[the postmortem]" not in html
    assert re.search(r"<ol>\s*<li>builds queued</li>\s*<li>then <em>timed out</em></li>", html)


def test_the_korean_page_renders_the_korean_markdown(client, markdown_case):
    html = client.get("/ko/cases/IL-0700/").content.decode()
    assert "<li>느린 소비자</li>" in html
    assert f"{LINK}사후 분석</a>" in html
    assert "<strong>세 가지</strong>" in html
    assert "<li>생산자 중지</li>" in html


def test_a_step_renders_its_markdown_inside_its_list_item(client, markdown_case):
    html = client.get("/en/cases/IL-0700/").content.decode()
    assert re.search(
        r'<ul class="steps"><li><p>Drained the queue:</p>\s*<ul>\s*<li>paused producers</li>',
        html,
    )


def test_the_english_fallback_is_marked_and_rendered(client, markdown_case):
    html = client.get("/ko/cases/IL-0700/").content.decode()
    assert "번역이 아직 없어 영어로 보여 줍니다." in html
    assert f'<div lang="en"><p>Watch the {QUEUE_LINK}queue depth</a>.</p></div>' in html


def test_a_step_without_korean_falls_back_to_english_marked(client, markdown_case):
    CaseStepFactory(
        case=markdown_case, kind=CaseStep.Kind.ACTION_ITEM, text_en="*Alert*", text_ko=""
    )
    html = client.get("/ko/cases/IL-0700/").content.decode()
    assert '<li lang="en"><p><em>Alert</em></p></li>' in html


def test_list_cards_render_markdown(client, markdown_case, django_assert_max_num_queries):
    for n in range(5):
        CaseFactory(symptoms_text_en=f"- first {n}\n- second {n}")
    client.get("/en/cases/")  # builds the facet index once
    with django_assert_max_num_queries(12):
        html = client.get("/en/cases/?page=1").content.decode()
    assert "<li>builds queued</li>" in html
    assert "<li>first 3</li>" in html and "<li>second 3</li>" in html
    assert f"{QUEUE_LINK}queue depth</a>" in html


def test_raw_html_in_a_text_is_shown_as_text(client, markdown_case):
    markdown_case.summary_en = 'Look: <script>alert(1)</script> <img src=x onerror="alert(2)">'
    markdown_case.save()
    html = client.get("/en/cases/IL-0700/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html and "<img src=x" not in html


def test_meta_and_opengraph_descriptions_are_plain_text(client, markdown_case):
    html = client.get("/en/cases/IL-0700/").content.decode()
    (description,) = re.findall(r'<meta name="description" content="([^"]*)"', html)
    (og,) = re.findall(r'<meta property="og:description" content="([^"]*)"', html)
    assert description == og
    assert description == (
        "The queue filled up for three reasons: • a slow consumer • a retry storm, see the "
        "postmortem It took kubectl rollout undo to stop it."
    )
    for syntax in ("**", "[", "](", "`", "- a", "&lt;", "<"):
        assert syntax not in description
    korean = client.get("/ko/cases/IL-0700/").content.decode()
    (og_ko,) = re.findall(r'<meta property="og:description" content="([^"]*)"', korean)
    assert og_ko.startswith(
        "큐가 세 가지 이유로 가득 찼다: • 느린 소비자 • 재시도 폭주, 사후 분석 참고"
    )


def test_the_feed_describes_cases_in_plain_text(client, markdown_case):
    body = client.get("/en/feed.atom").content
    entries = ElementTree.fromstring(body).findall("{http://www.w3.org/2005/Atom}entry")
    (summary,) = [
        entry.find("{http://www.w3.org/2005/Atom}summary").text
        for entry in entries
        if "IL-0700" in entry.find("{http://www.w3.org/2005/Atom}title").text
    ]
    # The summary is type="html": its text, once unescaped, is escaped plain text.
    assert summary.startswith("The queue filled up for three reasons:")
    assert "a slow consumer" in summary and "the postmortem" in summary
    assert "**" not in summary and "](" not in summary and "<" not in summary


def test_the_staff_preview_renders_markdown(client, markdown_case):
    markdown_case.status = markdown_case.Status.DRAFT
    markdown_case.published_at = None
    markdown_case.save()
    client.force_login(UserFactory(role="editor"))
    html = client.get(f"/en/preview/{markdown_case.pk}/").content.decode()
    assert "<li>a slow consumer</li>" in html and f"{LINK}the postmortem</a>" in html
