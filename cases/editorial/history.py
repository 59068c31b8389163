"""Saved versions of a case: recorded at every editorial save, compared, restored."""

import difflib

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.exchange.writing import write_case
from cases.models import Case, CaseVersion


def snapshot(case, *, user, reason=""):
    """Record the case as it is now (a pending revision is recorded under its case)."""
    root = case.root
    fresh = Case.objects.for_exchange().get(pk=case.pk)
    number = (
        CaseVersion.objects.filter(public_id=root.public_id).aggregate(n=Max("number"))["n"] or 0
    ) + 1
    return CaseVersion.objects.create(
        case=root,
        public_id=root.public_id,
        number=number,
        data=case_to_exchange(fresh),
        status=case.status,
        pending_revision=bool(case.draft_of_id),
        saved_by=user,
        reason=reason,
    )


def ensure_first_version(case, *, user):
    """Before the first editorial save of an imported case, keep what the import wrote."""
    root = case.root
    if not CaseVersion.objects.filter(public_id=root.public_id).exists():
        snapshot(case, user=None, reason=_("as it was before its first edit"))


def flatten(value, path=""):
    """{"title.en": "...", "sources[0].url": "..."} for comparing two versions."""
    if isinstance(value, dict):
        items = {}
        for key, item in value.items():
            items.update(flatten(item, f"{path}.{key}" if path else key))
        return items
    if isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            return {path: ", ".join(str(item) for item in value)}
        items = {}
        for index, item in enumerate(value):
            items.update(flatten(item, f"{path}[{index}]"))
        return items
    return {path: "" if value is None else str(value)}


def compare(older, newer):
    """The fields that differ between two versions: [(path, old, new, unified diff lines)]."""
    before, after = flatten(older.data), flatten(newer.data)
    changes = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, ""), after.get(path, "")
        if old != new:
            diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1))[
                2:
            ]
            changes.append((path, old, new, diff))
    return changes


def case_restore(*, case, version, user):
    """Write an old version's content back. A published case gets it as a pending
    revision (it goes public only through review); any other case takes it directly."""
    from cases.editorial.transitions import WorkflowError, can_edit, case_start_revision

    if version.public_id != case.root.public_id:
        raise WorkflowError(_("That version belongs to another case."))
    with transaction.atomic():
        target = case
        if case.status == Case.Status.PUBLISHED and not case.draft_of_id:
            target = case_start_revision(case=case, user=user)
        if not can_edit(user, target):
            raise WorkflowError(_("You cannot edit this case in its current state."))
        data, problems = validate_case(version.data)
        if data is None:
            raise WorkflowError(
                _("This version no longer passes validation: %(problems)s")
                % {"problems": "; ".join(str(p) for p in problems)}
            )
        write_case(target, data)
        target.last_edited_by = user
        target.edit_version += 1
        target.save()
        snapshot(target, user=user, reason=_("restored from version %(n)s") % {"n": version.number})
        return target
