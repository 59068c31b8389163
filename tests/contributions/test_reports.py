"""'Report a problem' on a case page: what a reader sends, what keeps machines out, the
rules that file, resolve and dismiss a report, and the email its editors get."""

import re

import pytest
from django.core import signing
from django.test import Client
from django.urls import reverse
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.contributions import guard, reports
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.models import Case, ProblemReport
from tests.factories import CaseFactory, UserFactory
from tests.worker import run_worker

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def case(editor):
    return CaseFactory(
        public_id="IL-0300",
        title_en="Certificate expiry took the API down",
        title_ko="인증서 만료로 API가 멈췄다",
        created_by=editor,
        last_edited_by=editor,
    )


@pytest.fixture
def patient_guard(monkeypatch):
    """A person who took their time: the guard's minimum is met at once."""
    monkeypatch.setattr(guard, "MIN_SECONDS", 0)


def report_url(public_id, language="en"):
    with translation.override(language):
        return reverse("cases:report", args=[public_id])


def form(**fields):
    data = {
        "text": "The outage lasted four hours, not two.",
        "source_url": "https://status.example.org/incidents/42",
        "email": "reader@example.net",
        "website": "",
        "issued": guard.issued_now(),
    }
    return {**data, **fields}


def page_text(response):
    return response.content.decode()


# --- filing ----------------------------------------------------------------------------


def test_a_reader_reports_a_problem_and_is_thanked(client, case, patient_guard):
    response = client.post(report_url("IL-0300"), form())
    assert response.status_code == 302
    assert response["Location"] == "/en/cases/IL-0300/report/thanks/"
    report = ProblemReport.objects.get()
    assert (report.case, report.text, report.source_url, report.email) == (
        case,
        "The outage lasted four hours, not two.",
        "https://status.example.org/incidents/42",
        "reader@example.net",
    )
    assert (report.language, report.status) == ("en", ProblemReport.Status.OPEN)
    thanks = client.get(response["Location"])
    assert thanks.status_code == 200
    assert 'href="/en/cases/IL-0300/"' in page_text(thanks)


def test_the_source_and_email_are_optional_and_the_korean_page_says_korean(
    client, case, patient_guard
):
    response = client.post(report_url("IL-0300", "ko"), form(source_url="", email=""))
    assert response.status_code == 302
    assert response["Location"] == "/ko/cases/IL-0300/report/thanks/"
    report = ProblemReport.objects.get()
    assert (report.source_url, report.email, report.language) == ("", "", "ko")


def test_a_report_goes_to_the_published_case_while_a_revision_is_pending(
    client, case, editor, patient_guard
):
    copy = workflow.case_start_revision(case=case, user=editor)
    assert client.post(report_url("IL-0300"), form()).status_code == 302
    report = ProblemReport.objects.get()
    assert report.case_id == case.pk != copy.pk
    # The rule says so too, handed the working copy.
    assert reports.report_file(case=copy, text="Also the date.", language="en").case_id == case.pk


def test_the_form_page_is_never_cached_and_asks_for_what_is_wrong(client, case):
    response = client.get(report_url("IL-0300"))
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    html = page_text(response)
    assert 'name="csrfmiddlewaretoken"' in html and 'name="issued"' in html
    assert re.search(r'<div class="report-website" aria-hidden="true">', html)
    assert "Certificate expiry took the API down" in html


@pytest.mark.parametrize("language, label", [("en", "Report a problem"), ("ko", "문제 신고")])
def test_the_case_page_links_to_the_form_in_plain_html(client, case, language, label):
    with translation.override(language):
        html = page_text(client.get(reverse("cases:detail", args=["IL-0300"])))
    assert f'<a href="/{language}/cases/IL-0300/report/" class="report-link">{label}</a>' in html
    # The page is cached for every reader: it must carry no one's CSRF token.
    assert "csrfmiddlewaretoken" not in html


# --- cases that take no reports ----------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_case_or_a_draft_is_not_found(client, method, patient_guard):
    CaseFactory(public_id="IL-0301", status=Status.DRAFT, published_at=None)
    for public_id in ("IL-9999", "IL-0301"):
        response = getattr(client, method)(report_url(public_id), form())
        assert response.status_code == 404
        assert response.status_code == client.get(f"/en/cases/{public_id}/").status_code
    assert client.get("/en/cases/IL-9999/report/thanks/").status_code == 404
    assert not ProblemReport.objects.exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_withdrawn_case_is_gone(client, method, patient_guard):
    CaseFactory(public_id="IL-0302", status=Status.WITHDRAWN)
    response = getattr(client, method)(report_url("IL-0302"), form())
    assert response.status_code == 410
    assert "This case was withdrawn" in page_text(response)
    assert not ProblemReport.objects.exists()


def test_the_rules_take_no_report_on_a_case_that_is_not_published(editor):
    draft = CaseFactory(status=Status.DRAFT, published_at=None)
    with pytest.raises(WorkflowError, match="published cases only"):
        reports.report_file(case=draft, text="Typo.", language="en")
    assert not ProblemReport.objects.exists()


# --- what keeps machines out -------------------------------------------------------------


def refused(response, message):
    assert response.status_code == 200
    html = page_text(response)
    assert 'class="notices report-refused" role="alert"' in html
    assert message in html
    assert not ProblemReport.objects.exists()
    return html


def test_a_filled_honeypot_is_refused_and_nothing_is_stored(client, case, patient_guard):
    response = client.post(report_url("IL-0300"), form(website="https://spam.example"))
    html = refused(response, "This form has expired or could not be checked.")
    # What the reader wrote is shown again, with a fresh time of issue to send it with.
    assert "The outage lasted four hours, not two." in html


def test_a_form_sent_faster_than_anyone_reads_it_is_refused(client, case):
    html = refused(
        client.post(report_url("IL-0300"), form()),
        "That was quicker than anyone can read the form.",
    )
    issued = re.search(r'name="issued" value="([^"]+)"', html).group(1)
    assert signing.loads(issued, salt=guard.SALT) > 0


@pytest.mark.parametrize(
    "issued",
    [
        "",
        "12345",
        signing.dumps(0, salt="another.salt"),
        signing.dumps("yesterday", salt=guard.SALT),
    ],
    ids=["missing", "unsigned", "signed elsewhere", "not a time"],
)
def test_a_forged_time_of_issue_is_refused(client, case, patient_guard, issued):
    response = client.post(report_url("IL-0300"), form(issued=issued))
    assert response.status_code == 200
    assert not ProblemReport.objects.exists()


def test_past_the_hourly_limit_an_address_is_told_when_to_come_back(
    client, case, patient_guard, settings
):
    settings.PROBLEM_REPORTS_PER_HOUR = 2
    for _n in range(2):
        assert client.post(report_url("IL-0300"), form()).status_code == 302
    response = client.post(report_url("IL-0300"), form(text="A third one."))
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 3600
    assert "Too many reports" in page_text(response)
    assert ProblemReport.objects.count() == 2
    # Another address is not held back by this one.
    other = client.post(report_url("IL-0300"), form(), REMOTE_ADDR="192.0.2.7")
    assert other.status_code == 302


def test_the_form_needs_its_csrf_token(case, patient_guard):
    browser = Client(enforce_csrf_checks=True)
    assert browser.post(report_url("IL-0300"), form()).status_code == 403
    assert not ProblemReport.objects.exists()
    html = page_text(browser.get(report_url("IL-0300")))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = browser.post(report_url("IL-0300"), form(csrfmiddlewaretoken=token))
    assert response.status_code == 302
    assert ProblemReport.objects.count() == 1


# --- what a report may hold --------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"text": ""}, "Say what is wrong first."),
        ({"text": "   \n "}, "Say what is wrong first."),
        ({"text": "x" * 5_001}, "Please keep it to 5,000 characters; this is 5,001."),
        ({"text": "nul\x00byte"}, "Null characters are not allowed."),
        ({"source_url": "javascript:alert(1)"}, "only http and https links are allowed"),
        (
            {"source_url": "https://example.org/" + "a" * 1_000},
            "a link may be at most 1000 characters long",
        ),
        ({"source_url": "https://" + "a" * 5_000}, "The source is too long to be a link."),
        ({"email": "not an address"}, "Enter a valid email address, or leave it empty."),
        ({"email": "a" * 250 + "@example.org"}, "An email address is at most 254 characters"),
    ],
    ids=[
        "empty",
        "blank",
        "too long",
        "nul",
        "not http",
        "long link",
        "very long link",
        "bad email",
        "long email",
    ],
)
def test_each_bad_field_gets_a_clear_message_and_nothing_is_stored(
    client, case, patient_guard, fields, message
):
    response = client.post(report_url("IL-0300"), form(**fields))
    assert response.status_code == 200
    html = page_text(response).replace("&#x27;", "'")
    assert re.search(r'<ul class="field-errors"[^>]*><li>[^<]*' + re.escape(message), html)
    assert not ProblemReport.objects.exists()


def test_a_text_of_exactly_the_limit_is_taken(client, case, patient_guard):
    assert client.post(report_url("IL-0300"), form(text="y" * 5_000)).status_code == 302
    assert len(ProblemReport.objects.get().text) == 5_000


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    text=st.text(max_size=80),
    source_url=st.one_of(st.just(""), st.text(max_size=40), st.from_regex(r"https?://\S{1,30}")),
    email=st.one_of(st.just(""), st.emails(), st.text(max_size=30)),
)
def test_any_input_is_stored_or_refused_with_a_message_never_an_error(
    client, case, patient_guard, text, source_url, email
):
    from django.core.cache import cache

    cache.clear()  # the hourly limit
    ProblemReport.objects.all().delete()
    response = client.post(
        report_url("IL-0300"), form(text=text, source_url=source_url, email=email)
    )
    assert response.status_code in (302, 200)
    stored = ProblemReport.objects.first()
    assert (response.status_code == 302) == (stored is not None)
    if stored is None:
        assert 'class="field-errors"' in page_text(response)
    else:
        assert stored.text == text.strip() and stored.text


# --- resolving and dismissing --------------------------------------------------------------


@pytest.fixture
def report(case):
    return reports.report_file(case=case, text="The date is wrong.", language="en")


def test_an_editor_of_the_case_resolves_a_report_with_a_note(report, editor):
    done = reports.report_resolve(report=report, user=editor, note="  Fixed the date.  ")
    report.refresh_from_db()
    assert (report.status, report.resolution_note, report.resolved_by) == (
        ProblemReport.Status.RESOLVED,
        "Fixed the date.",
        editor,
    )
    assert report.resolved_at is not None and done.pk == report.pk


def test_a_reviewer_dismisses_a_report(report, reviewer):
    reports.report_dismiss(report=report, user=reviewer, note="The source agrees with us.")
    report.refresh_from_db()
    assert report.status == ProblemReport.Status.DISMISSED


def test_a_report_is_handled_once(report, editor, reviewer):
    reports.report_resolve(report=report, user=editor, note="Fixed.")
    for handle in (reports.report_resolve, reports.report_dismiss):
        with pytest.raises(WorkflowError, match="already resolved by eddie on"):
            handle(report=report, user=reviewer, note="Again.")
    report.refresh_from_db()
    assert (report.resolution_note, report.resolved_by) == ("Fixed.", editor)


@pytest.mark.parametrize("note", ["", "  ", "x" * 5_001, "nul\x00"])
def test_handling_needs_a_note(report, editor, note):
    with pytest.raises(WorkflowError):
        reports.report_resolve(report=report, user=editor, note=note)
    report.refresh_from_db()
    assert report.is_open


def test_only_the_cases_editors_and_reviewers_handle_its_reports(report):
    stranger = UserFactory(username="sam", role="editor")  # an editor, of other cases
    nobody = UserFactory(username="nora", role=None)
    for user in (stranger, nobody):
        with pytest.raises(WorkflowError, match="Only the case's editors and reviewers"):
            reports.report_resolve(report=report, user=user, note="Done.")
    assert ProblemReport.objects.get().is_open


def test_the_database_refuses_a_handled_report_without_a_note(report):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        ProblemReport.objects.filter(pk=report.pk).update(status="resolved")


# --- telling the case's editors -----------------------------------------------------------


def test_the_cases_editors_are_told_of_a_report_by_email(
    client, case, editor, reviewer, patient_guard, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client.post(report_url("IL-0300"), form())
    run_worker()
    assert [message.to for message in mailoutbox] == [["eddie@example.org"]]
    message = mailoutbox[0]
    assert "IL-0300" in message.subject
    assert "The outage lasted four hours, not two." in message.body
    assert "https://status.example.org/incidents/42" in message.body
    assert f"/admin/cases/case/{case.pk}/change/#problem-reports" in message.body
    assert "reader@example.net" not in message.body  # it stays in the admin


def test_the_reviewers_are_told_when_the_case_has_no_editor_to_tell(
    reviewer, mailoutbox, django_capture_on_commit_callbacks
):
    imported = CaseFactory(public_id="IL-0303")  # an import: nobody wrote it here
    with django_capture_on_commit_callbacks(execute=True):
        reports.report_file(case=imported, text="Broken link.", language="ko")
    run_worker()
    assert [message.to for message in mailoutbox] == [["rita@example.org"]]


def test_a_report_handled_before_the_worker_ran_sends_nothing(
    case, editor, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        filed = reports.report_file(case=case, text="Typo.", language="en")
    reports.report_dismiss(report=filed, user=editor, note="Not a typo.")
    run_worker()
    assert mailoutbox == []
