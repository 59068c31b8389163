"""'Report a problem' in a real browser: a reader reports a problem from a case page and is
thanked; the case's editor finds it in the corrections queue and on the case's admin page,
resolves it with a note, and the case's timeline says so."""

import pytest

from cases.contributions import guard
from cases.models import ProblemReport
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.editors import RECORD_VIOLATIONS, csp_reports, sign_in
from tests.factories import CaseFactory, OrganisationFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def reader_page(browser, viewport=DESKTOP):
    context = browser.new_context(viewport=viewport, locale="en-US")
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.console_messages = []
    page.on("console", lambda message: page.console_messages.append(message.text))
    return page


def test_a_reader_reports_a_problem_and_the_editor_resolves_it(
    browser, live_server, screenshot, monkeypatch
):
    monkeypatch.setattr(guard, "MIN_SECONDS", 0)  # the reader types faster than a person
    base = live_server.url
    editor = UserFactory(username="eddie", role="editor", first_name="Eddie")
    case = CaseFactory(
        public_id="IL-4600",
        org=OrganisationFactory(name="Example Cloud", slug="example-cloud"),
        title_en="Expired certificate stopped the API",
        title_ko="인증서 만료로 API가 멈췄다",
        created_by=editor,
        last_edited_by=editor,
    )

    # The reader, on the case page, follows its link to the form.
    reader = reader_page(browser)
    reader.goto(f"{base}/en/cases/IL-4600/")
    reader.get_by_role("link", name="Report a problem").click()
    reader.wait_for_url(f"{base}/en/cases/IL-4600/report/")
    assert "IL-4600: Expired certificate stopped the API" in reader.inner_text(".report-case")
    # The honeypot is out of sight, and out of the accessibility tree.
    honeypot = reader.locator("#id_website").bounding_box()
    assert honeypot is None or honeypot["x"] + honeypot["width"] <= 0
    assert reader.get_by_role("textbox", name="Leave this empty").count() == 0
    reader.get_by_label("What is wrong?").fill(
        "The certificate expired at 00:00 UTC, not at midnight local time."
    )
    reader.get_by_label("Source (optional)").fill("https://status.example.org/incidents/7")
    reader.get_by_label("Your email (optional)").fill("reader@example.net")
    screenshot(reader, "report-1-form")
    reader.get_by_role("button", name="Send the report").click()
    reader.wait_for_url(f"{base}/en/cases/IL-4600/report/thanks/")
    assert "Your report on IL-4600 is with the case's editors." in reader.inner_text("main")
    screenshot(reader, "report-2-thanks")
    reader.get_by_role("link", name="Back to the case IL-4600").click()
    reader.wait_for_url(f"{base}/en/cases/IL-4600/")
    assert csp_reports(reader) == []
    report = ProblemReport.objects.get()
    assert report.case_id == case.pk and report.is_open

    # The editor finds it in the corrections queue, reached from the admin's index.
    desk = sign_in(browser, base, "eddie")
    desk.get_by_role("link", name="Reported problems").first.click()
    desk.wait_for_selector("#result_list")
    row = desk.locator("#result_list tbody tr").first
    assert "IL-4600" in row.inner_text() and "00:00 UTC" in row.inner_text()
    screenshot(desk, "report-3-queue")
    row.get_by_role("link", name="IL-4600").click()
    panel = desk.locator("#problem-reports")
    panel.wait_for()
    assert "1 open report from readers" in panel.inner_text()
    assert "reader@example.net" in panel.inner_text()
    screenshot(desk, "report-4-case-panel")

    # A note is needed; with one, the report is resolved and the timeline says so.
    panel.get_by_label("Note (required): what was done, or why nothing").fill(
        "Corrected the time in a pending revision."
    )
    panel.get_by_role("button", name="Resolve").click()
    desk.wait_for_selector(".messagelist .success")
    assert "No open reports from readers." in desk.inner_text("#problem-reports")
    entries = desk.locator(".workflow-timeline li")
    assert "Eddie resolved a reader's report" in entries.nth(0).inner_text()
    assert "Corrected the time in a pending revision." in entries.nth(0).inner_text()
    assert "a reader reported a problem" in entries.nth(1).inner_text()
    screenshot(desk, "report-5-resolved-in-timeline")
    assert csp_reports(desk) == []
    report.refresh_from_db()
    assert (report.status, report.resolved_by) == (ProblemReport.Status.RESOLVED, editor)


def test_the_form_on_a_phone_in_korean(browser, live_server, screenshot):
    CaseFactory(public_id="IL-4601", title_ko="디스크가 가득 찼다")
    reader = reader_page(browser, viewport=PHONE)
    reader.goto(f"{live_server.url}/ko/cases/IL-4601/")
    reader.get_by_role("link", name="문제 신고").click()
    reader.wait_for_url(f"{live_server.url}/ko/cases/IL-4601/report/")
    assert "최대 5,000자" in reader.inner_text(".report-form")  # in the reader's language
    box = reader.locator("#id_text").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # Sent at once: refused as too quick, and told so in Korean; nothing stored.
    reader.locator("#id_text").fill("날짜가 틀렸습니다.")
    reader.locator("button[type=submit]").click()
    reader.wait_for_selector(".report-refused")
    assert reader.input_value("#id_text") == "날짜가 틀렸습니다."
    screenshot(reader, "report-6-phone-korean-refused")
    assert not ProblemReport.objects.exists()
    assert csp_reports(reader) == []
