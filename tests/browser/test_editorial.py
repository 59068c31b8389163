"""An editor drafts a case in both languages; a reviewer sends it back, then publishes it."""

import pytest

from cases.models import Case, Organisation
from tests.browser.conftest import DESKTOP
from tests.browser.editors import sign_in
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def fill_translated(page, field, english, korean):
    # English and Korean sit side by side on one row.
    page.fill(f"#id_{field}_en", english)
    page.fill(f"#id_{field}_ko", korean)


def workflow_button(page, label):
    page.locator(".transition-form button", has_text=label).click()


def test_draft_review_request_changes_fix_and_publish(browser, live_server, screenshot):
    base = live_server.url
    UserFactory(username="eddie", role="editor")
    UserFactory(username="rita", role="reviewer")
    Organisation.objects.create(name="Example Cloud", slug="example-cloud")

    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/case/add/")
    editor.fill("#id_public_id", "IL-4242")
    editor.locator("#id_org").locator("xpath=following-sibling::span[1]").click()
    editor.keyboard.type("Example")
    editor.locator(".select2-results__option", has_text="Example Cloud").click()
    editor.fill("#id_date", "2025-03-01")
    fill_translated(editor, "title", "Queue backlog stalled deploys", "큐 적체로 배포가 멈췄다")
    fill_translated(editor, "summary", "A queue filled up.", "큐가 가득 찼다.")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")
    case = Case.objects.get(public_id="IL-4242")
    assert case.status == Case.Status.DRAFT and case.title_ko == "큐 적체로 배포가 멈췄다"
    workflow_button(editor, "Submit for review")
    editor.wait_for_selector(".case-status:text('In review')")

    reviewer = sign_in(browser, base, "rita")
    reviewer.goto(f"{base}/admin/cases/case/?queue=review")
    reviewer.get_by_role("link", name="IL-4242").click()
    reviewer.fill("#transition-note", "Say which queue.")
    screenshot(reviewer, "admin-review-panel")
    workflow_button(reviewer, "Request changes")
    reviewer.wait_for_selector(".case-status:text('Changes requested')")

    editor.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    assert "Say which queue." in editor.locator(".workflow-timeline").inner_text()
    editor.fill("#id_summary_en", "The deploy job queue filled up.")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")
    workflow_button(editor, "Submit for review")
    editor.wait_for_selector(".case-status:text('In review')")
    assert editor.locator(".transition-form button", has_text="Approve").count() == 0

    reviewer.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    # Only the English summary changed: its Korean may lag, and the reviewer must say so.
    workflow_button(reviewer, "Approve and publish")
    reviewer.wait_for_selector(".messagelist .error")
    assert "The Korean may lag the English in: summary" in reviewer.inner_text(".messagelist")
    reviewer.check("input[name=confirm_stale_korean]")
    screenshot(reviewer, "admin-approve-stale-korean")
    workflow_button(reviewer, "Approve and publish")
    reviewer.wait_for_selector(".case-status:text('Published')")

    public = browser.new_context(viewport=DESKTOP).new_page()
    public.goto(f"{base}/en/cases/IL-4242/")
    assert public.locator("h1").inner_text() == "Queue backlog stalled deploys"
    assert "The deploy job queue filled up." in public.locator("main").inner_text()
    assert "Reviewed by rita" in public.locator(".review-state").inner_text()
    public.goto(f"{base}/ko/cases/IL-4242/")
    assert public.locator("h1").inner_text() == "큐 적체로 배포가 멈췄다"
    assert public.locator(".translation-lag").is_visible()
    screenshot(public, "published-after-review-ko")


def test_the_form_names_each_problem_beside_its_field(browser, live_server, screenshot):
    base = live_server.url
    UserFactory(username="eddie", role="editor")
    organisation = Organisation.objects.create(name="Example Cloud", slug="example-cloud")
    case = Case.objects.create(
        public_id="IL-4300",
        org=organisation,
        date="2025-03-01",
        title_en="Disk full",
        created_by=UserFactory(username="eddie"),
    )
    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    editor.locator("summary", has_text="Cause and impact").click()  # a folded section
    editor.fill("#id_detected_after", "-00:05:00")
    editor.fill("#id_date", "2999-01-01")
    editor.fill("#id_title_en", "")
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".errornote")
    for field, words in [
        ("detected_after", "must not be negative"),
        ("date", "'2999-01-01' is in the future"),
        ("title_en", "a title is required in at least one language"),
    ]:
        row = editor.locator(f".form-row .field-{field}, .form-row.field-{field}").first
        assert words in row.inner_text(), field
    screenshot(editor, "admin-case-form-problems")
    case.refresh_from_db()
    assert case.title_en == "Disk full" and case.detected_after is None
