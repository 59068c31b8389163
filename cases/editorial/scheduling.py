"""Publishing and withdrawing at a set time.

A reviewer schedules a step the workflow would let them make now (approve a case in
review, withdraw a published one): `case_schedule` checks it as the workflow does, records
it in the case's timeline and enqueues a deferred task (cases.tasks.run_scheduled_transition)
that runs `schedule_run` at the time. That makes the step through the workflow
(`case_approve`, `case_withdraw`) as the reviewer who scheduled it, so that it is recorded,
notified and cached like any other; the workflow checks everything again then. A case
edited since it was scheduled is not published unseen: the schedule fails, with the
reason, and its reviewer is told by email. A schedule whose time passed while no worker ran
is made as soon as one runs.

Times are the site's time zone (settings.TIME_ZONE).
"""

from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cases import tasks
from cases.models import Case, ScheduledTransition

from . import transitions as workflow
from .audit import log
from .rights import WorkflowError, display_name, is_reviewer
from .translation_state import stale_fields

Action = ScheduledTransition.Action
State = ScheduledTransition.State
Status = Case.Status

# Further ahead is a mistake more often than a plan (a year typed wrong), and the worker
# takes the task stored for 9999-01-01 as one without a time.
FURTHEST_AHEAD = timedelta(days=366)

# Timeline codes, incidentlib.case.<code>: the status stays as it was.
SCHEDULED_CODES = {Action.APPROVE: "publication_scheduled", Action.WITHDRAW: "withdrawal_scheduled"}
WORKFLOW_FUNCTIONS = {Action.APPROVE: "case_approve", Action.WITHDRAW: "case_withdraw"}


def when(moment):
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z")


def case_schedule(*, case, user, action, run_at, note="", confirm_stale_korean=False):
    """Schedule `action` ("approve" or "withdraw") of the case for `run_at` (aware)."""
    note = (note or "").strip()
    if action not in Action.values:
        raise WorkflowError(_("Only a publication or a withdrawal can be scheduled."))
    if timezone.is_naive(run_at):
        run_at = timezone.make_aware(run_at)
    with transaction.atomic():
        # The case, locked, and everything the workflow would check of this step now:
        # the state, the user's rights, separation of duties and the note.
        case, _transition = workflow.locked_for(action, case=case, user=user, note=note)
        if action == Action.APPROVE and case.ko_stale and not confirm_stale_korean:
            raise WorkflowError(
                _(
                    "The Korean may lag the English in: %(fields)s. Update it, or confirm "
                    "that it may be published as it is."
                )
                % {"fields": ", ".join(stale_fields(case))}
            )
        if run_at <= timezone.now():
            raise WorkflowError(
                _("Choose a time in the future (it is now %(now)s).") % {"now": when(None)}
            )
        if run_at > timezone.now() + FURTHEST_AHEAD:
            raise WorkflowError(_("Choose a time within a year from now."))
        if ScheduledTransition.objects.active().filter(case=case).exists():
            raise WorkflowError(
                _("This case already has a scheduled step; cancel it first to set another.")
            )
        schedule = ScheduledTransition.objects.create(
            case=case,
            public_id=case.root.public_id,
            action=action,
            run_at=run_at,
            note=note,
            scheduled_by=user,
            edit_version=case.edit_version,
            confirm_stale_korean=bool(confirm_stale_korean),
        )
        record(schedule, SCHEDULED_CODES[action], user, scheduled_note(schedule))
        deferred = tasks.run_scheduled_transition.using(run_after=run_at)
        # Robust: the step is committed by then; a task that could not be stored leaves the
        # schedule "overdue" on the dashboard, which is better than an error page.
        transaction.on_commit(partial(deferred.enqueue, schedule.pk), robust=True)
    return schedule


def scheduled_note(schedule):
    if schedule.action == Action.APPROVE:
        text = _("Publication scheduled for %(when)s.")
    else:
        text = _("Withdrawal scheduled for %(when)s.")
    return " ".join(filter(None, [text % {"when": when(schedule.run_at)}, schedule.note]))


def record(schedule, code, user, note):
    """A line in the case's timeline: the status unchanged."""
    if schedule.case is not None:
        status = schedule.case.status
        log(schedule.case, code, status, status, user, note)


def case_cancel_schedule(*, schedule, user):
    """Cancel a scheduled step before it runs (reviewers)."""
    if not is_reviewer(user) or not user.is_active:
        raise WorkflowError(_("Only a reviewer can cancel a scheduled step."))
    with transaction.atomic():
        schedule = locked(schedule.pk)
        if schedule.state != State.SCHEDULED:
            raise WorkflowError(
                _("This step is no longer scheduled: it is %(state)s.")
                % {"state": schedule.get_state_display()}
            )
        finish(
            schedule, State.CANCELLED, _("Cancelled by %(name)s.") % {"name": display_name(user)}
        )
        record(
            schedule,
            "schedule_cancelled",
            user,
            _("The %(action)s scheduled for %(when)s was cancelled.")
            % {"action": schedule.get_action_display(), "when": when(schedule.run_at)},
        )
    return schedule


def locked(schedule_id):
    """The schedule and its case, both locked for this transaction (the case first, as the
    workflow and `case_schedule` lock it); None if there is no such schedule."""
    case_id = (
        ScheduledTransition.objects.filter(pk=schedule_id).values_list("case_id", flat=True).first()
    )
    case = Case.objects.locked().filter(pk=case_id).first() if case_id else None
    schedule = (
        ScheduledTransition.objects.select_for_update(of=("self",))
        .select_related("scheduled_by")
        .filter(pk=schedule_id)
        .first()
    )
    if schedule is not None:
        schedule.case = case if schedule.case_id == getattr(case, "pk", None) else None
    return schedule


def finish(schedule, state, outcome):
    schedule.state = state
    schedule.outcome = str(outcome)
    schedule.finished_at = timezone.now()
    # Not the case: approving a pending revision deletes its row, which SET NULL cleared.
    schedule.save(update_fields=["state", "outcome", "finished_at"])


def schedule_run(*, schedule_id):
    """Make a scheduled step, if it is still scheduled; the outcome, for the task's result.

    Run by the deferred task when its time comes. The step goes through the workflow as the
    reviewer who scheduled it, so the workflow's checks are made again, now: a reviewer who
    lost the right, a case in another state, a case edited since (its `edit_version`)
    each make the schedule fail, with the reason, and its reviewer is told.
    """
    with transaction.atomic():
        schedule = locked(schedule_id)
        if schedule is None or schedule.state != State.SCHEDULED:
            return schedule.state if schedule else "gone"  # cancelled, or made already
        reason = refusal(schedule)
        if reason is None:
            try:
                with transaction.atomic():
                    make(schedule)
            except WorkflowError as refused:
                reason = str(refused)
        if reason is None:
            finish(schedule, State.DONE, _("Made at %(when)s.") % {"when": when(None)})
            return State.DONE.value
        finish(schedule, State.FAILED, reason)
        record(schedule, "schedule_failed", schedule.scheduled_by, reason)
        transaction.on_commit(
            partial(tasks.send_schedule_failed_mail.enqueue, schedule.pk), robust=True
        )
        return State.FAILED.value


def refusal(schedule):
    """Why the schedule cannot be made now, or None; the workflow checks again as it makes
    it (the note, the Korean)."""
    if schedule.case is None:
        return _("The case was deleted.")
    if schedule.scheduled_by is None:
        return _("The account of the reviewer who scheduled it was deleted.")
    # The workflow's word first: a case published by hand meanwhile says so.
    transition = workflow.TRANSITIONS[schedule.action]
    if reason := workflow.refusal(schedule.scheduled_by, transition, schedule.case):
        return reason
    if schedule.case.edit_version != schedule.edit_version:
        return _(
            "The case was edited after the %(action)s was scheduled; a reviewer must look "
            "at it again."
        ) % {"action": schedule.get_action_display()}
    return None


def make(schedule):
    function = getattr(workflow, WORKFLOW_FUNCTIONS[Action(schedule.action)])
    options = {"case": schedule.case, "user": schedule.scheduled_by, "note": schedule.note}
    if schedule.action == Action.APPROVE:
        options["confirm_stale_korean"] = schedule.confirm_stale_korean
    return function(**options)


def upcoming():
    """Scheduled steps yet to be made, soonest first."""
    return (
        ScheduledTransition.objects.active()
        .select_related("case", "scheduled_by")
        .order_by("run_at", "pk")
    )


def recently_failed(days=7):
    """Scheduled steps that failed in the last `days` days, latest first."""
    since = timezone.now() - timedelta(days=days)
    return (
        ScheduledTransition.objects.filter(state=State.FAILED, finished_at__gte=since)
        .select_related("case", "scheduled_by")
        .order_by("-finished_at", "-pk")
    )
