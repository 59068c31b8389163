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
    return stored_and_normal_form(case)[1]


def stored_and_normal_form(case):
    """The case's content as stored (its exchange form) and as the validator leaves it."""
    stored = case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))
    normal, problems = validate_case(stored)
    if problems:
        raise WorkflowError(
            _(
                "%(id)s no longer passes validation (%(problems)s). Withdraw it and reopen it "
                "as a draft to correct it."
            )
            % {"id": case.public_id, "problems": "; ".join(str(p) for p in problems)}
        )
    return stored, normal


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
        # The copy starts with its case's text, whose words the library has.
        copy = Case(
            draft_of=case,
            status=Status.DRAFT,
            created_by=user,
            last_edited_by=user,
            search_text=case.search_text,
        )
        stored, normal = stored_and_normal_form(case)
        write_case(
            copy,
            normal,
            translation_basis=case.translation_basis or {},
            korean_changed=(),
        )
        log(copy, "revision_started", Status.PUBLISHED, Status.DRAFT, user)
        # Written from its case's content, the copy reads back as its case does.
        history.snapshot(copy, user=user, event=CaseVersion.Event.REVISION_STARTED, content=stored)
        return copy


def publish_revision(copy):
    """Write an approved working copy's content into its published case, and delete the
    copy. Return the published case (saved) and its content as stored: written from the
    copy's content, it reads back as the copy did."""
    live = Case.objects.select_for_update().get(pk=copy.draft_of_id)
    stored, normal = stored_and_normal_form(copy)
    write_case(
        live,
        normal,
        translation_basis=copy.translation_basis or {},
        korean_changed=(),
    )
    live.last_edited_by_id, live.submitted_by_id = copy.last_edited_by_id, copy.submitted_by_id
    copy.delete()
    return live, stored
