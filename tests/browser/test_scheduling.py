"""A reviewer schedules a publication on the workflow panel, sees it on the dashboard, and
the worker publishes it when due; an editor turns their emails off."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cases.editorial import transitions as workflow
from cases.models import Case, EditorPreference, ScheduledTransition
from tests.browser.editors import sign_in
from tests.factories import CaseFactory, UserFactory
from tests.worker import let_time_pass, run_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reviewer_schedules_a_publication_that_the_worker_makes_when_due(
    browser, live_server, screenshot
):
    base = live_server.url
    editor = UserFactory(username="eddie", role="editor", email="eddie@example.org")
    UserFactory(username="rita", role="reviewer", first_name="Rita", last_name="Park")
    case = CaseFactory(
        public_id="IL-4300",
        title_en="Expired certificate took the edge down",
        status=Case.Status.DRAFT,
        published_at=None,
        created_by=editor,
    )
    workflow.case_submit(case=case, user=editor)

    reviewer = sign_in(browser, base, "rita")
    reviewer.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    panel = reviewer.locator("#schedule-panel")
    assert "UTC, the site's time zone" in panel.inner_text()
    assert "It is now" in panel.inner_text()
    when = (timezone.now() + timedelta(minutes=30)).replace(second=0, microsecond=0)
    reviewer.fill("#schedule-run-at", when.strftime("%Y-%m-%dT%H:%M"))
    reviewer.fill("#schedule-note", "After the operator's own write-up.")
    screenshot(reviewer, "admin-schedule-publication")
    reviewer.click("button[name=schedule]")
    reviewer.wait_for_selector(".messagelist .success")
    assert f"Publication scheduled for {when:%Y-%m-%d %H:%M} UTC." in reviewer.inner_text(
        ".messagelist"
    )
    assert "by Rita Park" in reviewer.inner_text("#schedule-panel")
    assert reviewer.locator("button[name=cancel-schedule]").count() == 1
    screenshot(reviewer, "admin-publication-scheduled")

    reviewer.goto(f"{base}/admin/")
    row = reviewer.locator("#scheduled-steps .schedule-upcoming")
    assert f"{when:%Y-%m-%d %H:%M}" in row.inner_text()
    assert "IL-4300" in row.inner_text() and "Rita Park" in row.inner_text()
    screenshot(reviewer, "admin-dashboard-scheduled")

    run_worker()  # not yet due
    reviewer.goto(f"{base}/en/cases/IL-4300/")
    assert "Expired certificate" not in reviewer.content()

    let_time_pass(timedelta(minutes=31))
    run_worker()
    assert ScheduledTransition.objects.get().state == ScheduledTransition.State.DONE
    reader = browser.new_page()
    response = reader.goto(f"{base}/en/cases/IL-4300/")
    assert response.status == 200
    assert "Expired certificate took the edge down" in reader.inner_text("h1")
    screenshot(reader, "public-case-published-on-schedule")
    reader.close()

    reviewer.goto(f"{base}/admin/cases/case/{case.pk}/change/")
    assert "Published" in reviewer.inner_text(".case-status")
    assert "Publication scheduled for" in reviewer.inner_text(".workflow-timeline")


def test_an_editor_turns_their_emails_off(browser, live_server, screenshot):
    base = live_server.url
    editor_account = UserFactory(username="eddie", role="editor", email="eddie@example.org")
    editor = sign_in(browser, base, "eddie")
    editor.click("#user-tools >> text=Notification settings")
    editor.wait_for_selector("#id_email_notifications")
    assert editor.is_checked("#id_email_notifications")
    assert "Emails go to eddie@example.org." in editor.inner_text("#content")
    editor.uncheck("#id_email_notifications")
    editor.select_option("#id_language", "ko")
    screenshot(editor, "admin-notification-settings")
    editor.click("input[type=submit]")
    editor.wait_for_selector(".messagelist .success")
    assert not editor.is_checked("#id_email_notifications")
    preference = EditorPreference.objects.get(user=editor_account)
    assert (preference.email_notifications, preference.language) == (False, "ko")
