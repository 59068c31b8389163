"""Publishing and withdrawing at a set time: checked when scheduled as the workflow would
check it, made by the worker when due, through the workflow, or failed with the reason."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from cases.caching import public_version
from cases.editorial import scheduling
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.models import Case, CaseTransition, ScheduledTransition
from tests.admin_forms import edit_in_admin
from tests.factories import CaseFactory, UserFactory
from tests.worker import let_time_pass, run_worker, waiting_tasks

pytestmark = pytest.mark.django_db
Status = Case.Status
State = ScheduledTransition.State
HOUR = timedelta(hours=1)


@pytest.fixture
def in_review(editor):
    case = CaseFactory(
        public_id="IL-0400",
        title_en="Certificate expired on the edge",
        status=Status.DRAFT,
        published_at=None,
        created_by=editor,
        last_edited_by=editor,
    )
    workflow.case_submit(case=case, user=editor)
    return case


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def in_an_hour():
    return timezone.now() + HOUR


def schedule_publication(case, user, committed, **options):
    with committed():
        return scheduling.case_schedule(
            case=case, user=user, action="approve", run_at=in_an_hour(), **options
        )


def status_of(case):
    case.refresh_from_db()
    return case.status


# --- what is refused when scheduling ----------------------------------------------------


def test_an_editor_cannot_schedule_a_publication(in_review, committed):
    other_editor = UserFactory(role="editor")
    with pytest.raises(WorkflowError, match="do not have the right"):
        schedule_publication(in_review, other_editor, committed)
    assert not ScheduledTransition.objects.exists()
    assert not waiting_tasks().exists()


def test_the_reviewer_who_submitted_a_case_cannot_schedule_its_publication(reviewer, committed):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=reviewer)
    workflow.case_submit(case=case, user=reviewer)
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        schedule_publication(case, reviewer, committed)
    assert not ScheduledTransition.objects.exists()


def test_a_reviewer_who_wrote_part_of_a_case_cannot_schedule_its_publication(
    editor, reviewer, committed
):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    edit_in_admin(case, reviewer, summary_en="The reviewer's own words.")
    workflow.case_submit(case=case, user=editor)
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        schedule_publication(case, reviewer, committed)


def test_a_time_in_the_past_is_refused(in_review, reviewer, committed):
    with pytest.raises(WorkflowError, match="Choose a time in the future"), committed():
        scheduling.case_schedule(
            case=in_review, user=reviewer, action="approve", run_at=timezone.now() - HOUR
        )
    assert not ScheduledTransition.objects.exists()
    assert not waiting_tasks().exists()


def test_a_draft_cannot_be_scheduled_for_publication(editor, reviewer, committed):
    draft = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    with pytest.raises(WorkflowError, match="cannot be sent to"):
        schedule_publication(draft, reviewer, committed)


def test_a_withdrawal_needs_a_note_as_withdrawing_now_does(reviewer, committed):
    published = CaseFactory()
    with pytest.raises(WorkflowError, match="needs a note"), committed():
        scheduling.case_schedule(
            case=published, user=reviewer, action="withdraw", run_at=in_an_hour(), note=" "
        )


def test_stale_korean_must_be_confirmed_when_scheduling(in_review, reviewer, committed):
    Case.objects.filter(pk=in_review.pk).update(ko_stale=True)
    with pytest.raises(WorkflowError, match="The Korean may lag"):
        schedule_publication(in_review, reviewer, committed)
    schedule = schedule_publication(in_review, reviewer, committed, confirm_stale_korean=True)
    assert schedule.confirm_stale_korean


def test_one_scheduled_step_at_a_time(in_review, reviewer, second_reviewer, committed):
    first = schedule_publication(in_review, reviewer, committed)
    with pytest.raises(WorkflowError, match="already has a scheduled step"):
        schedule_publication(in_review, second_reviewer, committed)
    scheduling.case_cancel_schedule(schedule=first, user=second_reviewer)
    assert schedule_publication(in_review, second_reviewer, committed).state == State.SCHEDULED


# --- made when due ----------------------------------------------------------------------


def test_nothing_happens_before_the_time_and_the_case_is_published_when_due(
    in_review, editor, reviewer, committed, client, mailoutbox
):
    schedule = schedule_publication(in_review, reviewer, committed, note="Embargo lifts at nine.")
    recorded = CaseTransition.objects.filter(action="incidentlib.case.publication_scheduled")
    assert list(recorded.values_list("from_status", "to_status", "user__username")) == [
        ("in_review", "in_review", "rita")
    ]
    assert "Publication scheduled for" in recorded.get().note
    (task,) = waiting_tasks()
    assert task.run_after == schedule.run_at

    run_worker()
    assert status_of(in_review) == Status.IN_REVIEW
    assert client.get("/en/cases/IL-0400/").status_code == 404
    version = public_version()

    let_time_pass(HOUR)
    run_worker()
    assert status_of(in_review) == Status.PUBLISHED
    schedule.refresh_from_db()
    assert schedule.state == State.DONE and schedule.finished_at
    approved = CaseTransition.objects.get(action="incidentlib.case.approved")
    assert (approved.user, approved.note) == (reviewer, "Embargo lifts at nine.")
    assert in_review.reviewed_by == "Rita Park"
    assert public_version() > version
    page = client.get("/en/cases/IL-0400/")
    assert page.status_code == 200 and "Certificate expired on the edge" in page.content.decode()
    # Its author is told, as for any approval.
    assert [message.to for message in mailoutbox] == [["eddie@example.org"]]


def test_a_schedule_the_worker_missed_is_made_as_soon_as_a_worker_runs(
    in_review, reviewer, committed
):
    schedule_publication(in_review, reviewer, committed)
    let_time_pass(timedelta(days=2))  # no worker ran for two days
    run_worker()
    assert status_of(in_review) == Status.PUBLISHED


def test_a_case_edited_after_it_was_scheduled_is_not_published_and_the_scheduler_is_told(
    in_review, reviewer, second_reviewer, committed, mailoutbox
):
    schedule = schedule_publication(in_review, reviewer, committed)
    edit_in_admin(in_review, second_reviewer, summary_en="A claim nobody reviewed.")
    let_time_pass(HOUR)
    run_worker()
    assert status_of(in_review) == Status.IN_REVIEW
    schedule.refresh_from_db()
    assert schedule.state == State.FAILED
    assert "edited after the publication was scheduled" in schedule.outcome
    failed = CaseTransition.objects.get(action="incidentlib.case.schedule_failed")
    assert failed.note == schedule.outcome
    (message,) = mailoutbox
    assert message.to == ["rita@example.org"]
    assert "Scheduled publication of IL-0400 failed" in message.subject
    assert schedule.outcome in message.body
    assert f"/admin/cases/case/{in_review.pk}/change/" in message.body


def test_a_scheduler_who_lost_the_right_publishes_nothing(in_review, reviewer, committed):
    schedule = schedule_publication(in_review, reviewer, committed)
    reviewer.groups.clear()
    let_time_pass(HOUR)
    run_worker()
    assert status_of(in_review) == Status.IN_REVIEW
    schedule.refresh_from_db()
    assert schedule.state == State.FAILED
    assert "do not have the right" in schedule.outcome


def test_a_scheduled_withdrawal(reviewer, committed, client):
    published = CaseFactory(public_id="IL-0500")
    assert client.get("/en/cases/IL-0500/").status_code == 200
    with committed():
        schedule = scheduling.case_schedule(
            case=published,
            user=reviewer,
            action="withdraw",
            run_at=in_an_hour(),
            note="The operator retracted the report.",
        )
    assert CaseTransition.objects.filter(
        action="incidentlib.case.withdrawal_scheduled", from_status="published"
    ).exists()
    run_worker()
    assert status_of(published) == Status.PUBLISHED
    let_time_pass(HOUR)
    run_worker()
    assert status_of(published) == Status.WITHDRAWN
    assert client.get("/en/cases/IL-0500/").status_code == 410
    withdrawn = CaseTransition.objects.get(action="incidentlib.case.withdrawn")
    assert withdrawn.note == "The operator retracted the report."
    schedule.refresh_from_db()
    assert schedule.state == State.DONE


def test_a_scheduled_pending_revision_replaces_the_public_text(editor, reviewer, committed, client):
    live = CaseFactory(public_id="IL-0600", summary_en="Old text.", created_by=editor)
    copy = workflow.case_start_revision(case=live, user=editor)
    workflow.case_submit(case=copy, user=editor)
    schedule = schedule_publication(copy, reviewer, committed)
    let_time_pass(HOUR)
    run_worker()
    schedule.refresh_from_db()
    # Approving deletes the working copy; the schedule stays, done, under its case id.
    assert (schedule.state, schedule.case, schedule.public_id) == (State.DONE, None, "IL-0600")
    assert not Case.objects.filter(pk=copy.pk).exists()
    assert status_of(live) == Status.PUBLISHED


# --- cancelled --------------------------------------------------------------------------


def test_a_cancelled_schedule_does_nothing_when_its_time_comes(
    in_review, reviewer, second_reviewer, editor, committed
):
    schedule = schedule_publication(in_review, reviewer, committed)
    with pytest.raises(WorkflowError, match="Only a reviewer"):
        scheduling.case_cancel_schedule(schedule=schedule, user=editor)
    scheduling.case_cancel_schedule(schedule=schedule, user=second_reviewer)
    schedule.refresh_from_db()
    assert schedule.state == State.CANCELLED and "ravi" in schedule.outcome
    assert CaseTransition.objects.filter(
        action="incidentlib.case.schedule_cancelled", user=second_reviewer
    ).exists()
    with pytest.raises(WorkflowError, match="no longer scheduled"):
        scheduling.case_cancel_schedule(schedule=schedule, user=second_reviewer)
    let_time_pass(HOUR)
    (result,) = run_worker()
    assert result.return_value == "cancelled"
    assert status_of(in_review) == Status.IN_REVIEW


def test_a_case_published_by_hand_meanwhile_fails_its_schedule_with_the_reason(
    in_review, reviewer, second_reviewer, committed
):
    schedule = schedule_publication(in_review, reviewer, committed)
    workflow.case_approve(case=in_review, user=second_reviewer)
    let_time_pass(HOUR)
    run_worker()
    schedule.refresh_from_db()
    assert schedule.state == State.FAILED
    assert "A case that is published cannot be sent to" in schedule.outcome


def test_the_database_holds_one_active_schedule_per_case(in_review, reviewer):
    fields = {
        "case": in_review,
        "public_id": in_review.public_id,
        "action": "approve",
        "run_at": in_an_hour(),
        "scheduled_by": reviewer,
        "edit_version": 0,
    }
    ScheduledTransition.objects.create(**fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        ScheduledTransition.objects.create(**fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        ScheduledTransition.objects.create(**{**fields, "action": "withdraw", "case": None})
