"""Who is told what by email, when a case moves through review.

The emails are sent by the background worker (tests/worker.py runs the real one), after the
step commits: inside a test's transaction, `django_capture_on_commit_callbacks` commits.
"""

import pytest
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from cases.editorial import notifications
from cases.editorial import transitions as workflow
from cases.models import Case, EditorPreference
from tests.factories import CaseFactory, UserFactory
from tests.worker import run_worker

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def draft(editor):
    return CaseFactory(
        public_id="IL-0100",
        title_en="Queue backlog stalled deploys",
        title_ko="큐 적체로 배포가 멈췄다",
        status=Status.DRAFT,
        published_at=None,
        created_by=editor,
        last_edited_by=editor,
    )


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Steps made inside it are committed when it ends (their on_commit work runs)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def sent(mailoutbox):
    return sorted((message.to[0], message.subject) for message in mailoutbox)


# --- the finding: nobody was told -------------------------------------------------------


def test_reviewers_are_told_when_a_case_waits_for_review(
    draft, editor, reviewer, mailoutbox, committed
):
    with committed():
        workflow.case_submit(case=draft, user=editor)
    run_worker()
    assert [message.to for message in mailoutbox] == [["rita@example.org"]]
    assert "IL-0100" in mailoutbox[0].subject


def test_the_author_is_told_when_changes_are_requested(
    draft, editor, reviewer, mailoutbox, committed
):
    workflow.case_submit(case=draft, user=editor)
    with committed():
        workflow.case_request_changes(case=draft, user=reviewer, note="Say which queue.")
    run_worker()
    assert [message.to for message in mailoutbox] == [["eddie@example.org"]]
    assert "Say which queue." in mailoutbox[0].body


# --- who --------------------------------------------------------------------------------


def test_every_reviewer_who_can_be_reached_is_told_of_a_submission_but_the_submitter(
    editor, reviewer, second_reviewer, mailoutbox, committed
):
    UserFactory(username="gone", role="reviewer", email="gone@example.org", is_active=False)
    UserFactory(username="mute", role="reviewer", email="")
    quiet = UserFactory(username="quiet", role="reviewer", email="quiet@example.org")
    EditorPreference.objects.create(user=quiet, email_notifications=False)
    UserFactory(username="other-editor", role="editor", email="other@example.org")
    UserFactory(username="boss", email="boss@example.org", is_superuser=True)
    # A reviewer who submits is not told of their own step.
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=second_reviewer)
    with committed():
        workflow.case_submit(case=case, user=second_reviewer)
    run_worker()
    assert [to for to, _subject in sent(mailoutbox)] == ["boss@example.org", "rita@example.org"]


def test_the_author_and_the_submitter_are_told_of_changes_requested_and_of_the_approval(
    draft, editor, reviewer, second_reviewer, mailoutbox, committed
):
    # A reviewer submitted the editor's draft: both are told, never the reviewer who acts.
    workflow.case_submit(case=draft, user=second_reviewer)
    with committed():
        workflow.case_request_changes(case=draft, user=reviewer, note="Name the queue.")
    run_worker()
    assert [to for to, _subject in sent(mailoutbox)] == ["eddie@example.org", "ravi@example.org"]
    assert all("Name the queue." in message.body for message in mailoutbox)
    assert all("The reviewer's note" in message.body for message in mailoutbox)

    mailoutbox.clear()
    workflow.case_submit(case=draft, user=editor)
    with committed():
        workflow.case_approve(case=draft, user=reviewer, note="Clear and sourced.")
    run_worker()
    assert sent(mailoutbox) == [
        (
            "eddie@example.org",
            "[Incident Library] IL-0100 is published: Queue backlog stalled deploys",
        ),
    ]
    assert "Clear and sourced." in mailoutbox[0].body
    assert "Status: Published" in mailoutbox[0].body


def test_the_email_links_to_the_cases_admin_page_under_site_url(
    draft, editor, reviewer, mailoutbox, committed, settings
):
    settings.SITE_URL = "https://desk.example.org"
    with committed():
        workflow.case_submit(case=draft, user=editor)
    run_worker()
    body = mailoutbox[0].body
    assert f"https://desk.example.org/admin/cases/case/{draft.pk}/change/" in body.splitlines()
    assert "https://desk.example.org/admin/cases/editorpreference/mine/" in body.splitlines()
    assert "IL-0100: Queue backlog stalled deploys" in body


def test_a_pending_revisions_emails_link_to_the_revision(editor, reviewer, mailoutbox, committed):
    published = CaseFactory(public_id="IL-0200", created_by=editor)
    copy = workflow.case_start_revision(case=published, user=editor)
    with committed():
        workflow.case_submit(case=copy, user=editor)
    run_worker()
    assert f"/admin/cases/case/{copy.pk}/change/" in mailoutbox[0].body
    mailoutbox.clear()
    with committed():
        workflow.case_request_changes(case=copy, user=reviewer, note="Date the fix.")
    run_worker()
    assert [message.to for message in mailoutbox] == [["eddie@example.org"]]
    assert f"/admin/cases/case/{copy.pk}/change/" in mailoutbox[0].body


def test_nobody_who_turned_emails_off_is_told(draft, editor, reviewer, mailoutbox, committed):
    notifications.preferences_save(user=reviewer, email_notifications=False, language="en")
    with committed():
        workflow.case_submit(case=draft, user=editor)
    run_worker()
    assert mailoutbox == []


def test_a_korean_speaking_recipient_gets_the_email_in_korean(
    draft, editor, reviewer, mailoutbox, committed
):
    notifications.preferences_save(user=reviewer, email_notifications=True, language="ko")
    with committed():
        workflow.case_submit(case=draft, user=editor)
    run_worker()
    (message,) = mailoutbox
    assert "큐 적체로 배포가 멈췄다" in message.subject
    assert "검토 중" in message.body  # "In review"
    assert "In review" not in message.body


# --- when -------------------------------------------------------------------------------


def test_nothing_is_sent_when_the_step_is_rolled_back(
    draft, editor, reviewer, mailoutbox, committed
):
    with committed(), pytest.raises(RuntimeError), transaction.atomic():
        workflow.case_submit(case=draft, user=editor)
        raise RuntimeError("something after the step failed")
    assert not DBTaskResult.objects.exists()
    run_worker()
    assert mailoutbox == []
    draft.refresh_from_db()
    assert draft.status == Status.DRAFT


def test_the_request_only_enqueues_and_the_worker_sends(
    draft, editor, reviewer, mailoutbox, client, committed
):
    client.force_login(editor)
    with committed():
        response = client.post(f"/admin/cases/case/{draft.pk}/transition/submit/")
    assert response.status_code == 302
    assert mailoutbox == []  # the request did not wait for a mail server
    assert DBTaskResult.objects.get().task_path == "cases.tasks.send_transition_mail"
    finished = run_worker()
    assert [result.task_path for result in finished] == [
        "cases.tasks.send_transition_mail",
        "cases.tasks.deliver_mail",
    ]
    assert [message.to for message in mailoutbox] == [["rita@example.org"]]


def test_steps_without_news_send_nothing(draft, editor, reviewer, mailoutbox, committed):
    workflow.case_submit(case=draft, user=editor)
    workflow.case_approve(case=draft, user=reviewer)
    with committed():
        workflow.case_withdraw(case=draft, user=reviewer, note="Source retracted.")
        workflow.case_reopen(case=draft, user=reviewer)
    assert not DBTaskResult.objects.exists()


# --- what it costs the worker -----------------------------------------------------------
# The finding (#21, 2026-12-07): each step's task read the case's row, some sixty columns,
# with the step, and a pending revision's case again to find its working copy, even when
# nobody was to be told: 2.9 to 3.6 ms of the worker's CPU a task, two tasks a correction.


def case_reads(queries):
    """The queries that read a case's content (alone or joined to another table)."""
    return [query["sql"] for query in queries if '"cases_case"."summary_en"' in query["sql"]]


def test_a_submission_nobody_can_be_told_of_reads_no_case(
    draft, editor, django_assert_max_num_queries
):
    workflow.case_submit(case=draft, user=editor)  # (no reviewer to tell)
    step = draft.transitions.order_by("pk").last()
    with django_assert_max_num_queries(2) as queries:
        assert notifications.transition_mail(step.pk) == []
    assert case_reads(queries) == []


def test_a_step_reads_its_case_once_to_tell_who_is_told(
    editor, reviewer, django_assert_max_num_queries
):
    published = CaseFactory(public_id="IL-0200", created_by=editor)
    copy = workflow.case_start_revision(case=published, user=editor)
    workflow.case_submit(case=copy, user=editor)
    submitted = published.transitions.order_by("pk").last()
    workflow.case_request_changes(case=copy, user=reviewer, note="Date the fix.")
    requested = published.transitions.order_by("pk").last()
    for step, told in ((submitted, "rita@example.org"), (requested, "eddie@example.org")):
        with django_assert_max_num_queries(4) as queries:
            (message,) = notifications.transition_mail(step.pk)
        assert message["to"] == told
        assert f"/admin/cases/case/{copy.pk}/change/" in message["body"]  # the working copy
        assert len(case_reads(queries)) == 1
