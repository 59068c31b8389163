"""The review workflow: every change of a case's status goes through these functions.

    draft ──submit──▶ in review ──approve──▶ published ──withdraw──▶ withdrawn
                        │   ▲                                          │
           request changes  submit                                  reopen
                        ▼   │                                          ▼
                 changes requested                                   draft

A published case is never edited in place. `case_start_revision` gives it a working copy
(a draft whose `draft_of` is the published case); the copy goes through the same steps,
and approving it writes its content into the published case, which stays public with its
old content until then.

Each transition runs in one transaction, locks the case, checks its state and the user's
rights, saves only what it changes and records who, when, from, to and why.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.caching import public_content_changed
from cases.editorial.translation_state import update_translation_state
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.exchange.writing import write_case
from cases.models import Case, CaseTransition

Status = Case.Status


class WorkflowError(Exception):
    """A transition that is not allowed; the message says why, in the reader's language."""


@dataclass(frozen=True)
class Transition:
    name: str
    label: str
    sources: tuple
    target: str
    permission: str
    audit_code: str  # recorded as incidentlib.case.<audit_code>
    note_required: bool = False


TRANSITIONS = {
    t.name: t
    for t in [
        Transition(
            "submit",
            gettext_lazy("Submit for review"),
            (Status.DRAFT, Status.CHANGES_REQUESTED),
            Status.IN_REVIEW,
            "cases.submit_case",
            "submitted",
        ),
        Transition(
            "approve",
            gettext_lazy("Approve and publish"),
            (Status.IN_REVIEW,),
            Status.PUBLISHED,
            "cases.review_case",
            "approved",
        ),
        Transition(
            "request_changes",
            gettext_lazy("Request changes"),
            (Status.IN_REVIEW,),
            Status.CHANGES_REQUESTED,
            "cases.review_case",
            "changes_requested",
            note_required=True,
        ),
        Transition(
            "withdraw",
            gettext_lazy("Withdraw"),
            (Status.PUBLISHED,),
            Status.WITHDRAWN,
            "cases.review_case",
            "withdrawn",
            note_required=True,
        ),
        Transition(
            "reopen",
            gettext_lazy("Reopen as draft"),
            (Status.WITHDRAWN,),
            Status.DRAFT,
            "cases.review_case",
            "reopened",
        ),
    ]
}


def display_name(user):
    return user.get_full_name() or user.get_username()


def can_edit(user, case):
    """Editors edit their own drafts; reviewers any case not yet public; nobody a public one."""
    if case.status not in (Status.DRAFT, Status.CHANGES_REQUESTED, Status.IN_REVIEW):
        return False
    if user.is_superuser or user.has_perm("cases.review_case"):
        return True
    return (
        user.has_perm("cases.change_case")
        and case.status != Status.IN_REVIEW
        and case.created_by_id == user.pk
    )


def refusal(user, transition, case):
    """Why the user may not make this transition now, or None if they may."""
    if case.status not in transition.sources:
        return _("A case that is %(status)s cannot be sent to “%(action)s”.") % {
            "status": case.get_status_display().lower(),
            "action": transition.label,
        }
    if not user.has_perm(transition.permission):
        return _("You do not have the right to “%(action)s”.") % {"action": transition.label}
    if transition.name == "submit" and not can_edit(user, case):
        return _("Only the case's author or a reviewer can submit it.")
    if transition.name == "approve" and user.pk in (case.last_edited_by_id, case.submitted_by_id):
        return _("You edited or submitted this version; another reviewer must approve it.")
    if transition.name in ("withdraw", "reopen") and case.draft_of_id:
        return _("A pending revision is not public; request changes on it instead.")
    return None


def available_transitions(user, case):
    return [t for t in TRANSITIONS.values() if refusal(user, t, case) is None]


def log(case, transition_action, from_status, to_status, user, note="", *, pending=None):
    root = case.root
    return CaseTransition.objects.create(
        case=root,
        public_id=root.public_id,
        action=f"incidentlib.case.{transition_action}",
        from_status=from_status,
        to_status=to_status,
        user=user,
        note=note,
        pending_revision=bool(case.draft_of_id) if pending is None else pending,
    )


def _locked_for(name, *, case, user, note):
    """The case, locked for this transaction, once the transition is known to be allowed."""
    transition = TRANSITIONS[name]
    case = Case.objects.select_for_update(of=("self",)).select_related("draft_of").get(pk=case.pk)
    reason = refusal(user, transition, case)
    if reason:
        raise WorkflowError(reason)
    if transition.note_required and not note:
        raise WorkflowError(
            _("“%(action)s” needs a note saying why.") % {"action": transition.label}
        )
    return case, transition


def _transition(name, *, case, user, note=""):
    note = (note or "").strip()
    with transaction.atomic():
        case, transition = _locked_for(name, case=case, user=user, note=note)
        from_status = case.status
        case.status = transition.target
        fields = ["status", "modified"]
        if name == "submit":
            case.submitted_by = user
            fields.append("submitted_by")
        case.save(update_fields=fields)
        log(case, transition.audit_code, from_status, case.status, user, note)
        if Status.PUBLISHED in (from_status, case.status) or from_status == Status.WITHDRAWN:
            public_content_changed()
        return case


def case_submit(*, case, user, note=""):
    return _transition("submit", case=case, user=user, note=note)


def case_request_changes(*, case, user, note):
    return _transition("request_changes", case=case, user=user, note=note)


def case_withdraw(*, case, user, note):
    return _transition("withdraw", case=case, user=user, note=note)


def case_reopen(*, case, user, note=""):
    return _transition("reopen", case=case, user=user, note=note)


def case_approve(*, case, user, note=""):
    """Approve and publish: a new case goes public; a pending revision replaces its case's
    public content. Either way the review metadata names the approver."""
    from cases.editorial import history

    with transaction.atomic():
        case, transition = _locked_for("approve", case=case, user=user, note=note)
        now = timezone.now()
        was_revision = bool(case.draft_of_id)
        if was_revision:
            live = Case.objects.select_for_update().get(pk=case.draft_of_id)
            data, _problems = validate_case(case_to_exchange(exchange_case(case.pk)))
            write_case(live, data)
            live.translation_basis = case.translation_basis
            update_translation_state(live, korean_changed=())
            live.last_edited_by, live.submitted_by = case.last_edited_by, case.submitted_by
            published = live
            case.delete()
        else:
            published = case
            published.published_at = published.published_at or now
        published.status = Status.PUBLISHED
        published.reviewed_by = display_name(user)
        published.reviewed_at = now
        published.updated_at = now
        published.edit_version += 1
        published.save()
        log(
            published,
            transition.audit_code,
            Status.IN_REVIEW,
            Status.PUBLISHED,
            user,
            note,
            pending=was_revision,
        )
        history.snapshot(published, user=user, reason=_("approved and published"))
        public_content_changed()
        return published


def case_start_revision(*, case, user):
    """The working copy of a published case, made on first use from its public content."""
    from cases.editorial import history

    if not user.has_perm("cases.change_case"):
        raise WorkflowError(_("You do not have the right to edit cases."))
    with transaction.atomic():
        case = Case.objects.select_for_update().get(pk=case.pk)
        if case.draft_of_id:
            return case
        if case.status != Status.PUBLISHED:
            raise WorkflowError(
                _("Only a published case gets a pending revision; edit this one directly.")
            )
        existing = Case.objects.filter(draft_of=case).first()
        if existing:
            return existing
        data, _problems = validate_case(case_to_exchange(exchange_case(case.pk)))
        copy = Case(
            draft_of=case,
            status=Status.DRAFT,
            created_by=user,
            last_edited_by=user,
            translation_basis=case.translation_basis,
        )
        write_case(copy, data)
        copy.translation_basis = case.translation_basis
        update_translation_state(copy, korean_changed=())
        copy.save()
        log(copy, "revision_started", Status.PUBLISHED, Status.DRAFT, user)
        history.snapshot(copy, user=user, reason=_("pending revision started"))
        return copy


def exchange_case(pk):
    return Case.objects.for_exchange().get(pk=pk)
