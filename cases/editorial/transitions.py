"""The review workflow: every change of a case's status goes through these functions.

    draft ──submit──▶ in review ──approve──▶ published ──withdraw──▶ withdrawn
                        │   ▲                                          │
           request changes  submit                                  reopen
                        ▼   │                                          ▼
                 changes requested                                   draft

A published case is never edited in place: its edits go to a pending revision
(cases.editorial.revisions), which goes through the same steps.

Each transition runs in one transaction, locks the case, checks its state and the user's
rights, saves only what it changes and records who, when, from, to and why (audit). An
import and a restore change statuses too, many at a time: `record_import` and
`record_restore` record those.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.caching import public_content_changed
from cases.catalogue.changes import states_before
from cases.exchange.serialize import case_to_exchange, review_fields
from cases.models import Case, CaseVersion

from . import history, notifications
from .audit import log, log_many
from .claims import claim_end_with_review
from .combining import is_absorbed
from .revisions import case_start_revision, publish_revision
from .rights import WorkflowError, can_edit, display_name
from .translation_state import stale_fields

Status = Case.Status

__all__ = [
    "TRANSITIONS",
    "WorkflowError",
    "available_transitions",
    "locked_for",
    "can_edit",
    "case_approve",
    "case_reopen",
    "case_request_changes",
    "case_start_revision",
    "case_submit",
    "case_withdraw",
    "record_import",
    "record_restore",
    "refusal",
]


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


def refusal(user, transition, case):
    """Why the user may not make this transition now, or None if they may."""
    if is_absorbed(case):  # its id leads to the case it was merged into, for good
        return _("This case was merged into another; it cannot be reopened.")
    if case.status not in transition.sources:
        return _("A case that is %(status)s cannot be sent to “%(action)s”.") % {
            "status": case.get_status_display().lower(),
            "action": transition.label,
        }
    if not user.has_perm(transition.permission):
        return _("You do not have the right to “%(action)s”.") % {"action": transition.label}
    if transition.name == "submit" and not can_edit(user, case):
        return _("Only the case's author or a reviewer can submit it.")
    if transition.name == "approve" and (
        user.pk == case.submitted_by_id or user.pk in history.authors_since_approval(case)
    ):
        # Separation of duties from the history: any version since the last approval.
        return _("You edited or submitted this version; another reviewer must approve it.")
    if transition.name in ("withdraw", "reopen") and case.draft_of_id:
        return _("A pending revision is not public; request changes on it instead.")
    return None


def available_transitions(user, case):
    return [t for t in TRANSITIONS.values() if refusal(user, t, case) is None]


def locked_for(name, *, case, user, note, with_content=False):
    """The case, locked for this transaction, once the transition is known to be allowed.
    `with_content`: read with all its exchange form needs (`for_exchange`), and a pending
    revision's case locked after it and read under that lock, for an approval, which
    writes the one into the other and records the content."""
    transition = TRANSITIONS[name]
    if with_content:
        case = read_locked_with_content(case)
    else:
        case = Case.objects.locked().select_related("draft_of").get(pk=case.pk)
    reason = refusal(user, transition, case)
    if reason:
        raise WorkflowError(reason)
    if transition.note_required and not note:
        raise WorkflowError(
            _("“%(action)s” needs a note saying why.") % {"action": transition.label}
        )
    return case, transition


def read_locked_with_content(case):
    """The case read with its content (`for_exchange`) and locked; a pending revision's case
    too, in the same queries, since an approval compares the two. Locked in the order of
    their keys, as two approvals of the same revision ask them."""
    pks = [case.pk, case.draft_of_id] if case.draft_of_id else [case.pk]
    read = {
        found.pk: found
        for found in Case.objects.for_exchange().locked().filter(pk__in=pks).order_by("pk")
    }
    if case.pk not in read:
        raise Case.DoesNotExist(f"No case {case.pk}")
    case = read[case.pk]
    if case.draft_of_id:
        case.draft_of = read.get(case.draft_of_id) or Case.objects.locked().get(pk=case.draft_of_id)
    return case


def _transition(name, *, case, user, note=""):
    note = (note or "").strip()
    with transaction.atomic():
        case, transition = locked_for(name, case=case, user=user, note=note)
        claim_end_with_review(case=case)  # leaving review, or a new round of it
        from_status = case.status
        seen = from_status == Status.WITHDRAWN or Status.PUBLISHED in (
            from_status,
            transition.target,
        )
        before = states_before([case.pk]) if seen else None
        case.status = transition.target
        fields = ["status", "modified"]
        if name == "submit":
            case.submitted_by, case.submitted_at = user, timezone.now()
            fields += ["submitted_by", "submitted_at"]
        case.save(update_fields=fields)
        recorded = log(case, transition.audit_code, from_status, case.status, user, note)
        notifications.transition_recorded(recorded)
        if seen:
            public_content_changed(before)
        return case


def case_submit(*, case, user, note=""):
    return _transition("submit", case=case, user=user, note=note)


def case_request_changes(*, case, user, note):
    return _transition("request_changes", case=case, user=user, note=note)


def case_withdraw(*, case, user, note):
    return _transition("withdraw", case=case, user=user, note=note)


def case_reopen(*, case, user, note=""):
    return _transition("reopen", case=case, user=user, note=note)


def case_approve(*, case, user, note="", confirm_stale_korean=False):
    """Approve and publish: a new case goes public; a pending revision replaces its case's
    public content. Either way the review metadata names the approver.

    A case whose Korean may lag its English is published only with `confirm_stale_korean`;
    the record says so, and the public page tells Korean readers.
    """
    note = (note or "").strip()
    with transaction.atomic():
        case, transition = locked_for("approve", case=case, user=user, note=note, with_content=True)
        claim_end_with_review(case=case)
        if case.ko_stale:
            stale = stale_fields(case)
            if not confirm_stale_korean:
                raise WorkflowError(
                    _(
                        "The Korean may lag the English in: %(fields)s. Update it, or confirm "
                        "that it may be published as it is."
                    )
                    % {"fields": ", ".join(stale)}
                )
            lagging = _("Published with the Korean possibly lagging the English in: %(fields)s.")
            note = " ".join(filter(None, [note, lagging % {"fields": ", ".join(stale)}]))
        now = timezone.now()

        def approved(published):
            published.published_at = published.published_at or now
            published.status = Status.PUBLISHED
            published.reviewed_by = display_name(user)
            published.reviewed_at = now
            published.updated_at = now
            published.edit_version += 1

        was_revision = bool(case.draft_of_id)
        before = states_before([case.draft_of_id or case.pk])
        if was_revision:  # the public case's row written once, with the review's columns
            published, content = publish_revision(case, approved=approved)
            content = {**content, **review_fields(published)}
        else:
            published = case
            approved(published)
            published.save()
            content = case_to_exchange(published)  # (read with its content, above)
        recorded = log(
            published,
            transition.audit_code,
            Status.IN_REVIEW,
            Status.PUBLISHED,
            user,
            note,
            pending=was_revision,
        )
        notifications.transition_recorded(recorded)
        history.snapshot(published, user=user, event=CaseVersion.Event.APPROVED, content=content)
        public_content_changed(before)
        return published


# --- many cases at once: imports and restores ------------------------------------------


def imported_state(status, *own_times):
    """The editorial columns of a case an import creates with `status`. A published one
    was published at the first of `own_times` its data gives (when it was reviewed, last
    updated): the feed and the sitemap date it by its own history, and by the import only
    when its data gives no time at all."""
    published_at = None
    if status == Status.PUBLISHED:
        published_at = next((moment for moment in own_times if moment), None) or timezone.now()
    return {"status": status, "published_at": published_at}


def record_import(*, created, updated, status, user=None, note=""):
    """Record an import: `created` holds (primary key, public id) of the cases it made with
    `status`, `updated` (primary key, public id, status) of those whose content it changed
    (their status unchanged, but their public text changed without review)."""
    log_many(
        [(pk, public_id, "", status) for pk, public_id in created],
        "imported",
        user=user,
        note=note,
    )
    log_many(
        [(pk, public_id, old, old) for pk, public_id, old in updated],
        "import_updated",
        user=user,
        note=note,
    )


def record_restore(changes, *, note=""):
    """Record the statuses a restore changed: (primary key, public id, from, to) each."""
    log_many(changes, "restored", note=note)
