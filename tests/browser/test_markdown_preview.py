"""An editor writes Markdown in both languages and sees the public page's rendering beside
each text as they type; a reviewer publishes it, and the public page shows the same."""

import pytest
from playwright.sync_api import expect

from cases.models import Case, Organisation
from tests.browser.conftest import DESKTOP, SCREENSHOTS
from tests.browser.editors import csp_reports, sign_in
from tests.browser.test_editorial import workflow_button
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SUMMARY_EN = (
    "The deploy queue **stalled**:\n\n- builds queued for hours\n"
    "- see [the incident log](https://example.org/log)"
)
SUMMARY_KO = (
    "배포 큐가 **멈췄다**:\n\n- 빌드가 몇 시간 쌓였다\n- [장애 기록](https://example.org/log) 참고"
)
STEP_EN = "Drained the queue:\n\n1. paused the producers\n2. scaled the `consumers`"
LINK = 'a[href="https://example.org/log"][rel="nofollow noopener"]'


def preview_of(page, field):
    return page.locator(f"#id_{field} + .markdown-preview .markdown-preview-body")


def test_an_editor_sees_the_markdown_previewed_and_the_public_page_shows_it(
    browser, live_server, screenshot
):
    base = live_server.url
    editor_account = UserFactory(username="eddie", role="editor")
    UserFactory(username="rita", role="reviewer")
    case = Case.objects.create(
        public_id="IL-4600",
        org=Organisation.objects.create(name="Example Cloud", slug="example-cloud"),
        date="2025-03-01",
        title_en="Deploy queue stalled",
        title_ko="배포 큐가 멈췄다",
        summary_en="The queue stalled.",
        summary_ko="큐가 멈췄다.",
        symptoms_text_en="Deploys waited:\n\n- builds *queued*\n- deploys timed out",
        created_by=editor_account,
    )

    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    # The previews start with the saved texts, in the language of each.
    expect(preview_of(editor, "summary_en")).to_have_text("The queue stalled.")
    expect(preview_of(editor, "summary_ko")).to_have_text("큐가 멈췄다.")
    assert preview_of(editor, "summary_ko").get_attribute("lang") == "ko"
    assert editor.locator(".markdown-hint").first.is_visible()
    assert "Markdown: *emphasis*" in editor.locator(".markdown-hint").first.inner_text()

    for field, text in (("summary_en", SUMMARY_EN), ("summary_ko", SUMMARY_KO)):
        editor.fill(f"#id_{field}", "")
        editor.locator(f"#id_{field}").press_sequentially(text)
    english, korean = preview_of(editor, "summary_en"), preview_of(editor, "summary_ko")
    expect(english.locator("li")).to_have_text(["builds queued for hours", "see the incident log"])
    expect(english.locator(LINK)).to_have_text("the incident log")
    expect(english.locator("strong")).to_have_text("stalled")
    expect(korean.locator("li")).to_have_text(["빌드가 몇 시간 쌓였다", "장애 기록 참고"])
    expect(korean.locator(LINK)).to_have_text("장애 기록")

    # A step added after the page loaded gets its preview too (the steps fold: open them).
    editor.locator("#steps-group details").evaluate("details => { details.open = true; }")
    editor.locator("#steps-group .add-row a").click()
    editor.select_option("#id_steps-0-kind", "remediation")
    editor.locator("#id_steps-0-text_en").press_sequentially(STEP_EN)
    expect(preview_of(editor, "steps-0-text_en").locator("ol li")).to_have_text(
        ["paused the producers", "scaled the consumers"]
    )
    expect(preview_of(editor, "steps-0-text_ko")).to_be_empty()
    # Over the limit of a step: refused in the validator's words, and nothing is lost.
    editor.fill("#id_steps-0-text_ko", "가" * 5_001)
    status = editor.locator("#id_steps-0-text_ko + .markdown-preview .markdown-preview-status")
    expect(status).to_have_text("Too long to preview: at most 5,000 characters, not 5,001.")
    editor.fill("#id_steps-0-text_ko", "")
    expect(status).to_be_hidden()

    editor.locator("#id_summary_en").scroll_into_view_if_needed()
    editor.locator("fieldset.side-by-side").first.screenshot(
        path=str(SCREENSHOTS / "admin-markdown-preview.png")
    )
    editor.locator("#steps-group").screenshot(
        path=str(SCREENSHOTS / "admin-markdown-preview-step.png")
    )
    screenshot(editor, "admin-markdown-preview-page")
    assert csp_reports(editor) == []

    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")
    case.refresh_from_db()
    assert case.summary_en.replace("\r\n", "\n") == SUMMARY_EN  # a browser posts CRLF
    assert case.steps.get().text_en.replace("\r\n", "\n") == STEP_EN
    workflow_button(editor, "Submit for review")
    editor.wait_for_selector(".case-status:text('In review')")
    assert csp_reports(editor) == []

    reviewer = sign_in(browser, base, "rita")
    reviewer.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    workflow_button(reviewer, "Approve and publish")
    reviewer.wait_for_selector(".case-status:text('Published')")

    public = browser.new_context(viewport=DESKTOP).new_page()
    public.goto(f"{base}/en/cases/IL-4600/")
    summary = public.locator(".section", has=public.locator("h2", has_text="Summary"))
    expect(summary.locator("li")).to_have_text(["builds queued for hours", "see the incident log"])
    expect(summary.locator(LINK)).to_have_text("the incident log")
    steps = public.locator(".steps > li")
    expect(steps.locator("ol li")).to_have_text(["paused the producers", "scaled the consumers"])
    screenshot(public, "public-markdown-en")
    public.goto(f"{base}/ko/cases/IL-4600/")
    summary = public.locator(".section", has=public.locator("h2", has_text="요약"))
    expect(summary.locator("li")).to_have_text(["빌드가 몇 시간 쌓였다", "장애 기록 참고"])
    expect(summary.locator(LINK)).to_have_text("장애 기록")
    # The step has no Korean: the English, marked as such.
    assert public.locator(".steps > li").get_attribute("lang") == "en"
    screenshot(public, "public-markdown-ko")

    # The list's card shows the start of its first text: a lead-in and its list.
    public.goto(f"{base}/en/cases/")
    symptoms = public.locator("#IL-4600 .section").first
    expect(symptoms.locator("p").first).to_have_text("Deploys waited:")
    expect(symptoms.locator("li")).to_have_text(["builds queued", "deploys timed out"])
    expect(symptoms.locator("li em")).to_be_visible()
    card = public.locator("#IL-4600")
    card.screenshot(path=str(SCREENSHOTS / "public-markdown-card.png"))
