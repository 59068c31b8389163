"""Saving a case's content as an editor: creating, editing, restoring an old version,
confirming a translation. Each is one transaction, checks who may, validates the whole case
with the exchange format's validator, writes it through the importer's own writer and
records the version.
"""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cases.caching import public_content_changed
from cases.catalogue.changes import states_before
from cases.exchange.serialize import tracked_text
from cases.exchange.spelling import Problem, format_datetime
from cases.exchange.validation import validate_case
from cases.exchange.writing import write_case
from cases.models import Case, CaseVersion
from cases.rules import TRACKED_FIELDS

from . import history
from .ids import taken_id_problem
from .rights import EditConflict, WorkflowError, can_edit
from .translation_state import texts, update_translation_state

Status = Case.Status
Event = CaseVersion.Event


class CaseInvalid(WorkflowError):
    """The case breaks the exchange format's rules; `problems` names each at its field."""

    def __init__(self, problems):
        super().__init__("; ".join(str(problem) for problem in problems))
        self.problems = problems


def validated(data):
    normal, problems = validate_case(data)
    if problems:
        raise CaseInvalid(problems)
    return normal


def lock_unchanged_since(case, seen_version):
    """Lock the case's row for this transaction; EditConflict if it was saved since the
    editor opened it at `seen_version` (None: no check)."""
    current = (
        Case.objects.locked().filter(pk=case.pk).values_list("edit_version", flat=True).first()
    )
    if seen_version is not None and current is not None and seen_version != current:
        raise EditConflict()


def korean_changed_by(case, normal):
    """The fields whose Korean text the normal form `normal` changes in the stored case."""
    return {
        field
        for field in TRACKED_FIELDS
        if tracked_text(normal, field)["ko"] != texts(case, field)[1]
    }


@transaction.atomic
def case_save(*, case, data, user, seen_version=None, event=None, reason=None):
    """Save the case's content from `data` (exchange format) as `user`; return the case.

    A case without a primary key is created as a draft of `user`'s. An existing one is
    locked, must be editable by `user` and unchanged since `seen_version`; a Korean text it
    changes counts as written against the current English.
    """
    normal = validated(data)
    now = timezone.now()
    normal["updated_at"] = format_datetime(now)
    if case.pk is None:
        if not user.has_perm("cases.add_case"):
            raise WorkflowError(_("You do not have the right to add cases."))
        target, basis, korean_changed = case, {}, None
        target.status, target.created_by = Status.DRAFT, user
        event = event or Event.CREATED
    else:
        lock_unchanged_since(case, seen_version)
        target = Case.objects.select_related("draft_of").get(pk=case.pk)
        if not can_edit(user, target):
            raise WorkflowError(_("You cannot edit this case in its current state."))
        if target.draft_of_id and normal["id"] != target.public_id:
            raise WorkflowError(_("A pending revision keeps the id of its case."))
        history.ensure_first_version(target)
        korean_changed = korean_changed_by(target, normal)
        basis = target.translation_basis or {}
        event = event or Event.SAVED
    if not target.draft_of_id and (taken := taken_id_problem(normal["id"], case=target)):
        raise CaseInvalid([Problem("id", taken)])
    target.last_edited_by = user
    target.edit_version += 1
    try:
        with transaction.atomic():
            write_case(target, normal, translation_basis=basis, korean_changed=korean_changed)
    except IntegrityError:  # the same id taken meanwhile, by another save or an import
        raise CaseInvalid([Problem("id", _("Another case already has this id."))]) from None
    history.snapshot(target, user=user, event=event, reason=reason)
    return target


@transaction.atomic
def case_confirm_translation(*, case, user):
    """An editor says that every Korean text matches its English as it is now."""
    lock_unchanged_since(case, None)
    case = Case.objects.get(pk=case.pk)
    if not can_edit(user, case):
        raise WorkflowError(_("You cannot edit this case in its current state."))
    update_translation_state(case, confirm=True)
    case.edit_version += 1
    case.save(
        update_fields=[
            "translation_basis",
            "ko_stale",
            "ko_stale_since",
            "ko_missing",
            "en_missing",
            "edit_version",
            "modified",
        ]
    )
    return case


@transaction.atomic
def case_restore(*, case, version, user):
    """Write an old version's content back. A published case gets it as a pending
    revision (it goes public only through review); any other case takes it directly."""
    from .revisions import case_start_revision

    if version.public_id != case.root.public_id:
        raise WorkflowError(_("That version belongs to another case."))
    target = case
    if case.status == Status.PUBLISHED and not case.draft_of_id:
        target = case_start_revision(case=case, user=user)
    data = dict(version.data, id=target.public_id)
    try:
        return case_save(
            case=target,
            data=data,
            user=user,
            event=Event.RESTORED,
            reason=_("restored from version %(n)s") % {"n": version.number},
        )
    except CaseInvalid as invalid:
        raise WorkflowError(
            _("This version no longer passes validation: %(problems)s")
            % {"problems": "; ".join(str(p) for p in invalid.problems)}
        ) from None


@transaction.atomic
def case_delete(*, case, user):
    """Delete a case: superusers only, since its public address goes. Its versions and
    transitions stay, under its id."""
    if not user.is_superuser:
        raise WorkflowError(_("Only a superuser may delete a case."))
    case = Case.objects.locked(deleting=True).get(pk=case.pk)
    was_public = case.status in (Status.PUBLISHED, Status.WITHDRAWN)
    before = states_before([case.pk]) if was_public else None
    case.delete()
    if was_public:
        public_content_changed(before)
