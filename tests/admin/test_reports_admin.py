"""Readers' reports in the admin: the panel on the case's page, resolving and dismissing
there, the reports in the case's timeline, and the corrections queue."""

import re

import pytest
from django.urls import reverse

from cases.contributions import reports
from cases.editorial import transitions as workflow
from cases.models import ProblemReport
from tests.factories import CaseFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def case(editor):
    return CaseFactory(
        public_id="IL-0400", title_en="DNS outage", created_by=editor, last_edited_by=editor
    )


@pytest.fixture
def report(case):
    return reports.report_file(
        case=case,
        text="The outage began at 09:12, not 10:12.",
        source_url="https://status.example.org/42",
        email="reader@example.net",
        language="ko",
    )


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def handle_url(case, report, action):
    return reverse("admin:cases_case_problem_report", args=[case.pk, report.pk, action])


def panel(response):
    html = response.content.decode()
    match = re.search(r'<section class="problem-reports".*?</section>', html, re.S)
    assert match, "no panel of reported problems"
    return match.group()


def timeline(response):
    html = response.content.decode()
    match = re.search(r'<details class="workflow-timeline".*?</details>', html, re.S)
    assert match, "no timeline"
    return re.findall(r"<li[^>]*>.*?</li>", match.group(), re.S)


# --- the panel --------------------------------------------------------------------------


def test_the_cases_editor_sees_its_open_reports_with_the_readers_email(client, editor, report):
    client.force_login(editor)
    shown = panel(client.get(change_url(report.case)))
    assert "1 open report from readers" in shown
    assert "The outage began at 09:12, not 10:12." in shown
    assert 'href="https://status.example.org/42"' in shown
    assert 'href="mailto:reader@example.net"' in shown
    assert f'action="{handle_url(report.case, report, "resolve")}"' in shown
    assert f'formaction="{handle_url(report.case, report, "dismiss")}"' in shown


def test_an_editor_of_other_cases_reads_the_reports_but_not_the_email_nor_the_buttons(
    client, report
):
    client.force_login(UserFactory(username="sam", role="editor"))
    response = client.get(change_url(report.case))
    shown = panel(response)
    assert "The outage began at 09:12, not 10:12." in shown
    assert "reader@example.net" not in response.content.decode()
    assert "<form" not in shown


def test_the_readers_email_is_never_on_the_public_pages(client, report):
    for url in ("/en/cases/IL-0400/", "/ko/cases/IL-0400/", "/en/cases/IL-0400.json"):
        assert "reader@example.net" not in client.get(url).content.decode()


def test_a_pending_revisions_page_shows_its_cases_reports(client, editor, case, report):
    copy = workflow.case_start_revision(case=case, user=editor)
    client.force_login(editor)
    shown = panel(client.get(change_url(copy)))
    assert "The outage began at 09:12, not 10:12." in shown
    # Handled from the copy's page, it is the case's report that is resolved.
    client.post(handle_url(copy, report, "resolve"), {"note": "Fixed in the revision."})
    report.refresh_from_db()
    assert report.status == ProblemReport.Status.RESOLVED


# --- resolving and dismissing ----------------------------------------------------------------


def test_resolving_a_report_is_recorded_in_the_cases_timeline(client, editor, report):
    client.force_login(editor)
    response = client.post(
        handle_url(report.case, report, "resolve"), {"note": "Corrected the start time."}
    )
    assert response.status_code == 302
    assert response["Location"] == change_url(report.case) + "#problem-reports"
    page = client.get(response["Location"])
    assert "The report is resolved." in page.content.decode()
    assert "No open reports from readers. (1 handled, in the timeline)" in panel(page)
    entries = timeline(page)
    # Newest first: resolved, then reported (the case's publication, by the factory, has no
    # recorded step).
    assert "eddie resolved a reader's report" in entries[0]
    assert "Corrected the start time." in entries[0]
    assert "a reader reported a problem" in entries[1]
    assert "The outage began at 09:12, not 10:12." in entries[1]


def test_dismissing_is_recorded_too_and_a_second_answer_is_refused(
    client, editor, reviewer, report
):
    client.force_login(reviewer)
    client.post(handle_url(report.case, report, "dismiss"), {"note": "The source agrees."})
    client.force_login(editor)
    response = client.post(
        handle_url(report.case, report, "resolve"), {"note": "Fixed."}, follow=True
    )
    html = response.content.decode()
    assert "This report was already dismissed by Rita Park on" in html
    report.refresh_from_db()
    assert (report.status, report.resolution_note) == ("dismissed", "The source agrees.")
    assert "Rita Park dismissed a reader's report" in timeline(response)[0]


def test_a_report_is_not_resolved_without_a_note(client, editor, report):
    client.force_login(editor)
    response = client.post(handle_url(report.case, report, "resolve"), {"note": " "}, follow=True)
    assert "Say what was done in a note." in response.content.decode()
    report.refresh_from_db()
    assert report.is_open


def test_who_may_not_resolve_cannot(client, report):
    url = handle_url(report.case, report, "resolve")
    # Nobody signed in: to the login page.
    response = client.post(url, {"note": "Done."})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    # An editor of other cases: refused, with the reason.
    client.force_login(UserFactory(username="sam", role="editor"))
    response = client.post(url, {"note": "Done."}, follow=True)
    assert "Only the case&#x27;s editors and reviewers handle its reports." in (
        response.content.decode()
    )
    # Staff without any right on cases: not even the case.
    client.force_login(UserFactory(username="nora", role=None))
    assert client.post(url, {"note": "Done."}).status_code == 403
    report.refresh_from_db()
    assert report.is_open


def test_handling_takes_only_a_post_a_known_action_and_the_cases_own_report(
    client, editor, case, report
):
    client.force_login(editor)
    assert client.get(handle_url(case, report, "resolve")).status_code == 405
    assert client.post(handle_url(case, report, "delete"), {"note": "x"}).status_code == 403
    other = CaseFactory(public_id="IL-0401", created_by=editor)
    assert client.post(handle_url(other, report, "resolve"), {"note": "x"}).status_code == 404
    report.refresh_from_db()
    assert report.is_open


# --- the corrections queue -------------------------------------------------------------------


def queue(client, **params):
    return client.get(reverse("admin:cases_problemreport_changelist"), params)


def test_the_queue_is_reached_from_the_admin_index_and_lists_open_reports_oldest_first(
    client, editor, reviewer, case
):
    other = CaseFactory(public_id="IL-0402", title_en="Disk full")
    first = reports.report_file(case=case, text="First report.", language="en")
    handled = reports.report_file(case=other, text="Handled report.", language="en")
    reports.report_resolve(report=handled, user=reviewer, note="Done.")
    last = reports.report_file(case=other, text="Last report.", language="ko")
    client.force_login(editor)
    index = client.get(reverse("admin:index")).content.decode()
    assert reverse("admin:cases_problemreport_changelist") in index
    html = queue(client).content.decode()
    order = [html.index(text) for text in ("First report.", "Last report.", "Handled report.")]
    assert order == sorted(order)
    assert "reader@example.net" not in html
    only_open = queue(client, status__exact="open").content.decode()
    assert "Handled report." not in only_open and "Last report." in only_open
    of_case = queue(client, case=case.pk).content.decode()
    assert "First report." in of_case and "Last report." not in of_case
    assert queue(client, case="x").status_code == 200
    assert first.pk != last.pk


def test_the_queue_costs_the_same_queries_however_many_reports(
    client, editor, django_assert_max_num_queries
):
    client.force_login(editor)

    def file(count, start):
        for n in range(count):
            case = CaseFactory(public_id=f"IL-{start + n:04d}")
            reports.report_file(case=case, text=f"Report {n}.", language="en")

    file(2, 500)
    with django_assert_max_num_queries(12) as few:
        assert queue(client).status_code == 200
    file(30, 600)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert queue(client).status_code == 200


def test_a_reports_page_shows_the_email_only_to_who_handles_it(client, editor, report):
    url = reverse("admin:cases_problemreport_change", args=[report.pk])
    client.force_login(editor)
    assert "reader@example.net" in client.get(url).content.decode()
    client.force_login(UserFactory(username="sam", role="editor"))
    html = client.get(url).content.decode()
    assert "The outage began at 09:12" in html and "reader@example.net" not in html


def test_the_queue_is_for_editors_and_reports_are_neither_added_nor_changed_there(
    client, editor, report
):
    client.force_login(UserFactory(username="nora", role=None))
    assert queue(client).status_code == 403
    client.force_login(editor)
    assert client.get(reverse("admin:cases_problemreport_add")).status_code == 403
    url = reverse("admin:cases_problemreport_change", args=[report.pk])
    client.post(url, {"status": "resolved", "resolution_note": "sneaky"})
    report.refresh_from_db()
    assert report.is_open
