"""Pending revisions: a published case is never edited in place.

`case_start_revision` gives it a working copy (a draft whose `draft_of` is the published
case) made from its public content; the copy goes through review like any draft, and
approving it writes its content into the published case (`publish_revision`), which stays
public with its old content until then.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from cases.deletion import delete_row
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.exchange.writing import names_of, write_case
from cases.models import Case, CaseVersion

from . import history
from .audit import log
from .rights import WorkflowError

Status = Case.Status


def exchange_form(case):
    """The case's content as the validator leaves it, or WorkflowError naming what breaks
    the rules (a case written before a rule was tightened, or around the editorial code)."""
    return read_content(case)[1]


def read_content(case, *, read=False):
    """The case's content as stored (its exchange form), as the validator leaves it, and
    the organisation and terms it names (`names_of`). `read`: the case was read with
    `Case.objects.for_exchange()` in this transaction."""
    if not read:
        case = Case.objects.for_exchange().get(pk=case.pk)
    stored = case_to_exchange(case)
    normal, problems = validate_case(stored)
    if problems:
        raise WorkflowError(
            _(
                "%(id)s no longer passes validation (%(problems)s). Withdraw it and reopen it "
                "as a draft to correct it."
            )
            % {"id": case.public_id, "problems": "; ".join(str(p) for p in problems)}
        )
    return stored, normal, names_of(case)


def case_start_revision(*, case, user):
    """The working copy of a published case, made on first use from its public content."""
    if not user.has_perm("cases.change_case"):
        raise WorkflowError(_("You do not have the right to edit cases."))
    with transaction.atomic():
        # Locked and read for its content at once: the copy is made from this read.
        case = Case.objects.for_exchange().locked().get(pk=case.pk)
        if case.draft_of_id:
            return case
        if case.status != Status.PUBLISHED:
            raise WorkflowError(
                _("Only a published case gets a pending revision; edit this one directly.")
            )
        # (asked by its key alone: there is seldom one, and a case has sixty columns)
        existing = Case.objects.filter(draft_of=case).values_list("pk", flat=True).first()
        if existing:
            return Case.objects.get(pk=existing)
        # The copy starts with its case's text, whose words the library has.
        copy = Case(
            draft_of=case,
            status=Status.DRAFT,
            created_by=user,
            last_edited_by=user,
            search_text=case.search_text,
        )
        stored, normal, names = read_content(case, read=True)
        write_case(
            copy,
            normal,
            translation_basis=case.translation_basis or {},
            korean_changed=(),
            names=names,
        )
        log(copy, "revision_started", Status.PUBLISHED, Status.DRAFT, user)
        # Written from its case's content, the copy reads back as its case does.
        history.snapshot(copy, user=user, event=CaseVersion.Event.REVISION_STARTED, content=stored)
        return copy


def publish_revision(copy, *, approved):
    """Write an approved working copy's content into its published case, and delete the
    copy. The copy and its case were read for this, locked, in this transaction
    (`transitions.locked_for(..., with_content=True)`). `approved(case)` sets the
    approval's own columns, written in the same save. Return the published case (saved)
    and its content as stored: written from the copy's content, it reads back as the copy
    did."""
    live = copy.draft_of
    stored, normal, names = read_content(copy, read=True)
    # (a correction of its text leaves its terms, steps, sources and links as they are)
    as_stored = case_to_exchange(live)

    def editorial_columns(case):
        case.last_edited_by_id = copy.last_edited_by_id
        case.submitted_by_id = copy.submitted_by_id
        approved(case)

    write_case(
        live,
        normal,
        translation_basis=copy.translation_basis or {},
        korean_changed=(),
        also=editorial_columns,
        names=names,
        stored=as_stored,
    )
    delete_row(copy)  # (what hangs on a copy is its content: the collector has little to do)
    return live, stored
