"""The case form's live preview: who may ask, what it answers (the public page's own HTML),
and the texts it refuses."""

import json
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from cases import rules
from cases.markdown import render
from tests.factories import CaseFactory, CaseStepFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = "/admin/cases/case/markdown-preview/"
MARKDOWN_EN = "Deploys **stalled**:\n\n- builds queued\n- see [the log](https://example.org/l)"
MARKDOWN_KO = "배포가 **멈췄다**:\n\n- 빌드가 쌓였다\n- [기록](https://example.org/l) 참고"


def ask(client, *pairs):
    return client.post(URL, {"field": [f for f, _t in pairs], "text": [t for _f, t in pairs]})


@pytest.fixture
def editor(client):
    client.force_login(UserFactory(role="editor"))
    return client


def test_the_address_is_the_admins():
    assert reverse("admin:cases_case_markdown_preview") == URL


def test_the_preview_is_the_public_pages_html_in_both_languages(editor):
    response = ask(
        editor,
        ("summary_en", MARKDOWN_EN),
        ("summary_ko", MARKDOWN_KO),
        ("steps-0-text_ko", "*되돌렸다*"),
        ("steps-12-text_en", "1. one\n2. two"),
        ("lessons_en", ""),
    )
    assert response.status_code == 200
    assert response.json()["previews"] == [
        {"field": "summary_en", "html": str(render(MARKDOWN_EN))},
        {"field": "summary_ko", "html": str(render(MARKDOWN_KO))},
        {"field": "steps-0-text_ko", "html": "<p><em>되돌렸다</em></p>"},
        {"field": "steps-12-text_en", "html": "<ol>\n<li>one</li>\n<li>two</li>\n</ol>"},
        {"field": "lessons_en", "html": ""},
    ]
    html = response.json()["previews"][0]["html"]
    assert "<li>builds queued</li>" in html
    assert '<a href="https://example.org/l" rel="nofollow noopener">the log</a>' in html


@pytest.mark.parametrize("field", ["summary", "symptoms_text", "trigger", "detection", "lessons"])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_long_text_has_a_preview(editor, field, language):
    (result,) = ask(editor, (f"{field}_{language}", "- a")).json()["previews"]
    assert result == {"field": f"{field}_{language}", "html": "<ul>\n<li>a</li>\n</ul>"}


def test_hostile_markdown_is_previewed_harmless(editor):
    previews = ask(editor, ("summary_en", "<script>x</script>[x](javascript:y)")).json()
    assert previews["previews"] == [
        {"field": "summary_en", "html": "<p>&lt;script&gt;x&lt;/script&gt;[x](javascript:y)</p>"}
    ]


@pytest.mark.parametrize(
    ("field", "limit"),
    [
        ("summary_en", rules.MAX_TEXT_LENGTH),
        ("lessons_ko", rules.MAX_TEXT_LENGTH),
        ("steps-3-text_ko", rules.MAX_STEP_LENGTH),
    ],
)
def test_a_text_over_the_limit_is_refused_with_a_message(editor, field, limit):
    response = ask(editor, (field, "가" * (limit + 1)), ("trigger_en", "*fine*"))
    assert response.status_code == 200
    refused, fine = response.json()["previews"]
    expected = f"at most {limit:,} characters, not {limit + 1:,}"
    assert refused == {"field": field, "error": f"Too long to preview: {expected}."}
    assert fine == {"field": "trigger_en", "html": "<p><em>fine</em></p>"}
    (at_limit,) = ask(editor, (field, "a" * limit)).json()["previews"]
    assert at_limit["html"] == f"<p>{'a' * limit}</p>"


def test_the_refusal_is_in_the_editors_language(editor):
    editor.cookies["django_language"] = "ko"
    response = editor.post(
        URL,
        {"field": "summary_ko", "text": "a" * (rules.MAX_TEXT_LENGTH + 1)},
        HTTP_ACCEPT_LANGUAGE="ko",
    )
    (refused,) = response.json()["previews"]
    assert "50,000" in refused["error"] and "50,001" in refused["error"]


@pytest.mark.parametrize(
    "field", ["title_en", "impact_scope_en", "summary_fr", "steps-x-text_en", "sources-0-url", ""]
)
def test_only_the_markdown_texts_have_a_preview(editor, field):
    (result,) = ask(editor, (field, "- a")).json()["previews"]
    assert result == {"field": field, "error": "This field has no preview."}


def test_a_request_with_too_many_texts_or_unpaired_is_refused(editor):
    response = ask(editor, *[("summary_en", "a")] * 41)
    assert response.status_code == 400
    assert "at most 40 at a time" in response.json()["error"]
    unpaired = editor.post(URL, {"field": ["summary_en", "lessons_en"], "text": ["a"]})
    assert unpaired.status_code == 400


def test_only_post(editor):
    assert editor.get(URL).status_code == 405


def test_anonymous_is_sent_to_the_login(client):
    response = ask(client, ("summary_en", "a"))
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_a_user_who_is_not_staff_is_sent_to_the_login(client):
    client.force_login(UserFactory(is_staff=False))
    response = ask(client, ("summary_en", "a"))
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_staff_who_may_not_write_cases_are_refused(client):
    client.force_login(UserFactory(role=None))
    assert ask(client, ("summary_en", "a")).status_code == 403


def test_a_reviewer_may_preview(client):
    client.force_login(UserFactory(role="reviewer"))
    assert ask(client, ("summary_en", "*a*")).json()["previews"][0]["html"] == "<p><em>a</em></p>"


def test_the_csrf_token_is_required():
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory(role="editor"))
    assert client.post(URL, {"field": "summary_en", "text": "a"}).status_code == 403
    page = client.get("/admin/cases/case/add/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        URL, {"field": "summary_en", "text": "*a*", "csrfmiddlewaretoken": token}
    )
    assert response.json()["previews"][0]["html"] == "<p><em>a</em></p>"


def test_the_case_form_loads_the_preview_script_and_its_stylesheet(client):
    user = UserFactory(role="editor")
    client.force_login(user)
    case = CaseFactory(status="draft", published_at=None, created_by=user)
    CaseStepFactory(case=case)
    for address in (f"/admin/cases/case/{case.pk}/change/", "/admin/cases/case/add/"):
        html = client.get(address).content.decode()
        (tag,) = re.findall(r"<script [^>]*markdown-preview\.js[^>]*>", html)
        assert 'src="/static/admin/js/markdown-preview.js"' in tag and " defer" in tag
        assert f'data-url="{URL}"' in tag
        assert "Markdown: *emphasis*" in tag
        assert 'href="/static/admin/markdown-preview.css"' in html
        limits = json.loads(unescape(re.search(r'data-limits="([^"]+)"', tag).group(1)))
        assert [limit for _pattern, limit in limits] == [
            rules.MAX_TEXT_LENGTH,
            rules.MAX_STEP_LENGTH,
        ]
        assert "at most %(max)s characters, not %(count)s" in unescape(tag)
        names = re.findall(r'<textarea name="([^"]+)"', html)
        previewed = sorted(n for n in names if any(re.search(p, n) for p, _limit in limits))
        expected = sorted(
            f"{field}_{language}"
            for field in ("summary", "symptoms_text", "trigger", "detection", "lessons")
            for language in ("en", "ko")
        )
        if "change" in address:
            expected += ["steps-0-text_en", "steps-0-text_ko"]
        assert previewed == sorted(expected)
