"""A reader suggests a case; an editor finds it in the triage queue, sees the case that
cites a similar address, and accepts it into a draft whose sources hold the address."""

import pytest

from cases.contributions import guard
from cases.models import Case, Suggestion
from tests.browser.conftest import DESKTOP
from tests.browser.editors import RECORD_VIOLATIONS, csp_reports, sign_in
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SUGGESTED = (
    "https://www.status.example-cloud.com/incidents/2025-03-01-queue-backlog/?utm_source=feed"
)
CITED = "https://status.example-cloud.com/archive/2025-03-01-queue-backlog.html"


def reader_page(browser):
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.console_messages = []
    page.on("console", lambda message: page.console_messages.append(message.text))
    return page


def test_a_reader_suggests_a_case_and_an_editor_accepts_it_into_a_draft(
    browser, live_server, screenshot, monkeypatch
):
    monkeypatch.setattr(guard, "MIN_SECONDS", 0)  # the reader here types faster than a person
    base = live_server.url
    UserFactory(username="eddie", role="editor")
    OrganisationFactory(name="Example Cloud", slug="example-cloud")
    known = CaseFactory(public_id="IL-0585", title_en="Queue backlog stalled deploys")
    SourceFactory(case=known, url=CITED)

    reader = reader_page(browser)
    reader.goto(f"{base}/en/cases/")
    reader.locator(".site-footer").get_by_role("link", name="Suggest a case").click()
    reader.wait_for_url(f"{base}/en/suggest/")
    # The honeypot is out of sight, and a screen reader skips it.
    trap = reader.locator("#id_website").bounding_box()
    assert trap["x"] + trap["width"] <= 0
    assert reader.locator(".form-trap").get_attribute("aria-hidden") == "true"
    reader.fill("#id_source_url", SUGGESTED)
    reader.fill("#id_organisation", "example cloud")
    reader.fill("#id_date", "2025-03-01")
    reader.fill("#id_note", "Deploys waited three hours behind a full queue.")
    reader.fill("#id_email", "reader@example.net")
    screenshot(reader, "suggest-form")
    reader.get_by_role("button", name="Send the suggestion").click()
    reader.wait_for_url(f"{base}/en/suggest/thanks/")
    assert reader.get_by_role("heading", name="Thank you for your suggestion").is_visible()
    screenshot(reader, "suggest-thanks")
    assert csp_reports(reader) == []
    suggestion = Suggestion.objects.get()
    assert suggestion.status == Suggestion.Status.NEW

    editor = sign_in(browser, base, "eddie")
    editor.goto(f"{base}/admin/cases/suggestion/")
    editor.get_by_role("link", name=SUGGESTED[:40], exact=False).first.click()
    editor.wait_for_selector("#accept-form")
    matches = editor.locator("#matches")
    assert "similar address" in matches.inner_text()
    assert matches.get_by_role("link", name="IL-0585: Queue backlog stalled deploys").is_visible()
    assert "reader@example.net" in editor.locator(".suggestion-sent").inner_text()
    # The organisation the reader named is proposed, and the date they gave.
    assert "Example Cloud" in editor.locator("#accept-form .select2-selection").inner_text()
    assert editor.input_value("#id_accept-date") == "2025-03-01"
    editor.fill("#id_accept-title_en", "Queue backlog stalled deploys for three hours")
    screenshot(editor, "admin-suggestion-triage")
    editor.get_by_role("button", name="Accept and create the draft").click()
    editor.wait_for_selector(".messagelist .success")
    assert csp_reports(editor) == []

    suggestion.refresh_from_db()
    draft = suggestion.draft
    assert suggestion.status == Suggestion.Status.ACCEPTED
    assert draft.status == Case.Status.DRAFT and draft.org.slug == "example-cloud"
    assert editor.url.endswith(f"/admin/cases/case/{draft.pk}/change/")
    assert editor.input_value("#id_sources-0-url") == SUGGESTED
    assert editor.locator("#id_sources-0-url").is_visible()  # the sources section starts open
    screenshot(editor, "admin-suggestion-draft")
