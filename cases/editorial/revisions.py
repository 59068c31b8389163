"""Pending revisions: a published case is never edited in place.

`case_start_revision` gives it a working copy (a draft whose `draft_of` is the published
case) made from its public content; the copy goes through review like any draft, and
approving it writes its content into the published case (`publish_revision`), which stays
public with its old content until then.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.exchange.writing import write_case
from cases.models import Case, CaseVersion

from . import history
from .audit import log
from .rights import WorkflowError

Status = Case.Status


def exchange_form(case):
    """The case's content as the validator leaves it, or WorkflowError naming what breaks
    the rules (a case written before a rule was tightened, or around the editorial code)."""
    normal, problems = validate_case(case_to_exchange(Case.objects.for_exchange().get(pk=case.pk)))
    if problems:
        raise WorkflowError(
            _(
                "%(id)s no longer passes validation (%(problems)s). Withdraw it and reopen it "
                "as a draft to correct it."
            )
            % {"id": case.public_id, "problems": "; ".join(str(p) for p in problems)}
        )
    return normal


def case_start_revision(*, case, user):
    """The working copy of a published case, made on first use from its public content."""
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
        copy = Case(draft_of=case, status=Status.DRAFT, created_by=user, last_edited_by=user)
        write_case(
            copy,
            exchange_form(case),
            translation_basis=case.translation_basis or {},
            korean_changed=(),
        )
        log(copy, "revision_started", Status.PUBLISHED, Status.DRAFT, user)
        history.snapshot(copy, user=user, event=CaseVersion.Event.REVISION_STARTED)
        return copy


def publish_revision(copy):
    """Write an approved working copy's content into its published case, and delete the
    copy; return the published case (saved)."""
    live = Case.objects.select_for_update().get(pk=copy.draft_of_id)
    write_case(
        live,
        exchange_form(copy),
        translation_basis=copy.translation_basis or {},
        korean_changed=(),
    )
    live.last_edited_by, live.submitted_by = copy.last_edited_by, copy.submitted_by
    copy.delete()
    return live
