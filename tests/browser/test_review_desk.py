"""The review desk in a real browser: a reviewer claims a case and comments on two of its
fields; the editor answers each beside its field, saves and resubmits; the reviewer sees
what changed since the last review; each sees the other on the page."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from cases.editorial import drafts
from cases.editorial import transitions as workflow
from cases.editorial.revisions import exchange_form
from cases.models import Case, CaseComment, CasePresence
from tests.browser.editors import sign_in
from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# Added before any page script runs (Playwright's init scripts are not subject to the CSP).


def no_violations(page):
    assert page.evaluate("window.cspViolations") == []


def case_in_review(editor):
    case = CaseFactory(
        public_id="IL-4500",
        org=OrganisationFactory(name="Example Cloud", slug="example-cloud"),
        status=Case.Status.DRAFT,
        published_at=None,
        created_by=editor,
        last_edited_by=editor,
        title_en="Queue backlog stalled deploys",
        title_ko="큐 적체로 배포가 멈췄다",
        summary_en="A queue filled up.",
        summary_ko="큐가 가득 찼다.",
        trigger_en="A burst of deploys.",
        trigger_ko="배포가 몰렸다.",
    )
    CaseStepFactory(case=case, position=0, text_en="Drained the queue.", text_ko="큐를 비웠다.")
    case = drafts.case_save(case=case, data=exchange_form(case), user=editor)
    return workflow.case_submit(case=case, user=editor)


def thread_beside(page, field):
    """The comment thread the script moved into the field's own box on the form."""
    return page.locator(f"#case_form .field-{field} > .field-comments > .comment-thread")


def test_comments_beside_fields_claims_presence_and_what_changed(
    browser, live_server, screenshot, settings
):
    # No heartbeat until the end: SQLite in tests (transactions not begun IMMEDIATE, see
    # incidentlib/settings/test.py) may refuse a save while another request writes.
    settings.CASE_PRESENCE_HEARTBEAT = 3600
    base = live_server.url
    editor_user = UserFactory(username="eddie", role="editor", first_name="Eddie")
    UserFactory(username="jun", role="reviewer", first_name="Jun")
    case = case_in_review(editor_user)
    Case.objects.filter(pk=case.pk).update(submitted_at=timezone.now() - timedelta(days=2))
    change = f"{base}/admin/cases/case/{case.pk}/change/"

    # The reviewer finds the case in the queue, with its age, and claims it.
    reviewer = sign_in(browser, base, "jun")
    reviewer.goto(f"{base}/admin/cases/case/?queue=review")
    row = reviewer.locator("#result_list tr", has_text="IL-4500")
    assert re.search(r"waiting 2\sdays", row.inner_text())
    screenshot(reviewer, "review-desk-1-queue")
    row.get_by_role("link", name="IL-4500").click()
    reviewer.get_by_role("button", name="Claim this review").click()
    reviewer.wait_for_selector(".review-claim.is-claimed")
    assert re.search(r"Reviewing since \d\d:\d\d — Jun", reviewer.inner_text(".review-claim"))
    assert "First review" in reviewer.inner_text(".since-review")

    # A comment beside "Trigger, Korean" and one beside "Summary, English".
    for field, label, words in [
        ("trigger_ko", "Trigger, Korean", "Say what the burst was: a release train?"),
        ("summary_en", "Summary, English", "Name the queue."),
    ]:
        reviewer.get_by_role("button", name=f"Comment on {label}").click()
        box = reviewer.locator(f"#case_form .field-{field} > .field-comments")
        box.locator(".field-comment-composer textarea").fill(words)
        box.locator(".field-comment-composer button", has_text="Add comment").click()
        thread_beside(reviewer, field).first.wait_for()
        assert words in thread_beside(reviewer, field).inner_text()
    screenshot(reviewer, "review-desk-2-reviewer-comments")
    assert CaseComment.objects.count() == 2
    no_violations(reviewer)
    reviewer.fill("#transition-note", "See the comments on the fields.")
    reviewer.locator(".transition-form button", has_text="Request changes").click()
    reviewer.wait_for_selector(".case-status:text('Changes requested')")
    # Jun keeps the page open (the heartbeat keeps them listed).
    reviewer.goto(change)

    # The editor: the dashboard counts the comments; each is beside its field.
    editor = sign_in(browser, base, "eddie")
    count = editor.locator('#review-desk-dashboard [data-count="on_my_cases"]')
    assert count.inner_text() == "2"
    screenshot(editor, "review-desk-3-dashboard")
    editor.locator("#review-desk-dashboard a", has_text="Open comments on my cases").click()
    editor.get_by_role("link", name="IL-4500").first.click()
    editor.wait_for_selector("#case_form")
    assert "Also open: Jun" in editor.inner_text("#case-presence")
    trigger_thread = thread_beside(editor, "trigger_ko")
    summary_thread = thread_beside(editor, "summary_en")
    assert "release train" in trigger_thread.inner_text()
    assert "Name the queue." in summary_thread.inner_text()
    screenshot(editor, "review-desk-4-editor-sees-comments")

    # Edits in the form survive answering the comments (they are sent with fetch()).
    editor.fill("#id_trigger_ko", "릴리스 트레인 세 개가 한꺼번에 배포되었다.")
    editor.fill("#id_summary_en", "The deploy job queue filled up.")
    trigger_thread.locator("textarea").fill("Yes: three release trains at once.")
    trigger_thread.get_by_role("button", name="Reply").click()
    editor.wait_for_selector(".field-trigger_ko .comment-reply")
    summary_thread.get_by_role("button", name="Resolve").click()
    editor.wait_for_selector(".field-summary_en .comment-thread.is-resolved")
    assert editor.input_value("#id_trigger_ko") == "릴리스 트레인 세 개가 한꺼번에 배포되었다."
    assert editor.input_value("#id_summary_en") == "The deploy job queue filled up."
    screenshot(editor, "review-desk-5-editor-answered")
    no_violations(editor)
    editor.click("input[name=_continue]")
    editor.wait_for_selector(".messagelist .success")
    editor.locator(".transition-form button", has_text="Submit for review").click()
    editor.wait_for_selector(".case-status:text('In review')")
    # The open comment is still beside its field; the resolved one is in the timeline.
    assert thread_beside(editor, "trigger_ko").count() == 1
    assert "Name the queue." in editor.inner_text(".workflow-timeline")

    # The reviewer's page, open before the editor opens theirs, learns of the editor by its
    # heartbeat, without a reload.
    settings.CASE_PRESENCE_HEARTBEAT = 1
    CasePresence.objects.filter(user=editor_user).delete()  # as if long ago
    reviewer.goto(change)
    assert "Eddie" not in reviewer.inner_text("#case-presence")
    editor.goto(change)
    reviewer.wait_for_function(
        "() => document.getElementById('case-presence').textContent.includes('Eddie')"
    )
    screenshot(reviewer, "review-desk-6-presence")

    # One click: what changed since the request for changes.
    reviewer.goto(change)
    reviewer.get_by_role("link", name="What changed since the last review").click()
    reviewer.wait_for_selector(".version-diff")
    diff = reviewer.inner_text(".version-diff")
    assert "summary.en" in diff and "The deploy job queue filled up." in diff
    assert "trigger.ko" in diff and "title.en" not in diff
    screenshot(reviewer, "review-desk-7-changed-since-review")
    no_violations(reviewer)


def test_without_javascript_the_panel_has_every_thread_and_its_forms(
    browser, live_server, screenshot
):
    base = live_server.url
    editor_user = UserFactory(username="eddie", role="editor")
    UserFactory(username="jun", role="reviewer")
    case = case_in_review(editor_user)
    change = f"{base}/admin/cases/case/{case.pk}/change/"

    reviewer = sign_in(browser, base, "jun", javascript=False)
    reviewer.goto(change)
    reviewer.select_option("#comment-add-field", label="Remediation step 1, Korean")
    reviewer.fill("#comment-add-text", "Say how long it took.")
    reviewer.get_by_role("button", name="Add comment").click()
    reviewer.wait_for_selector(".messagelist .success")
    thread = reviewer.locator("#review-comments .comment-thread")
    assert "Remediation step 1, Korean" in thread.text_content()
    thread.locator("textarea").fill("Twenty minutes, I think.")
    thread.get_by_role("button", name="Reply").click()
    reviewer.wait_for_selector(".messagelist .success")
    thread = reviewer.locator("#review-comments .comment-thread")
    assert "Twenty minutes, I think." in thread.inner_text()
    screenshot(reviewer, "review-desk-8-without-javascript")
    thread.get_by_role("button", name="Resolve").click()
    reviewer.wait_for_selector(".messagelist .success")
    assert reviewer.locator("#review-comments .comment-thread").count() == 0
    assert "Say how long it took." in reviewer.inner_text(".workflow-timeline")
