"""Case ids: the one a new case is offered, and whether one is taken."""

from django.db.models import BigIntegerField, Max
from django.db.models.functions import Cast, Substr
from django.utils.translation import gettext as _

from cases.models import Case, CaseTransition, CaseVersion

# An id whose number a 64-bit integer holds (a valid case id has at most 17 digits);
# anything else a history row may hold, from before ids were checked, is skipped.
NUMBERED_ID = r"^IL-[0-9]{1,18}\Z"


def highest_number(model):
    numbered = model.objects.filter(public_id__regex=NUMBERED_ID)
    number = Cast(Substr("public_id", len("IL-") + 1), BigIntegerField())
    return numbered.aggregate(highest=Max(number))["highest"] or 0


def propose_case_id():
    """The next free IL-number: one more than the highest of any case, a pending revision's
    copy included, zero-padded to four digits (IL-0001 in an empty library).

    A deleted case's id counts too: its versions and status changes stay under it
    (cases.editorial.history), and a new case with that id would inherit them. An editor
    may still type another id; two editors offered the same one are told by the save
    (`taken_id_problem`)."""
    highest = max(highest_number(model) for model in (Case, CaseVersion, CaseTransition))
    return f"IL-{highest + 1:04d}"


def taken_id_problem(public_id, *, case):
    """Why `case` may not have `public_id` because another case has it, or None. (A pending
    revision's copy shares its case's id, and is not another case.)"""
    others = Case.objects.live().filter(public_id=public_id)
    if case.pk is not None:
        others = others.exclude(pk=case.pk)
    if others.exists():
        return _("Another case already has this id.")
    return None
