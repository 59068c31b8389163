"""Who may edit a case, and the error that every refused editorial step raises."""

from django.utils.translation import gettext_lazy as _

from cases.models import Case

Status = Case.Status
EDITABLE = (Status.DRAFT, Status.CHANGES_REQUESTED, Status.IN_REVIEW)


class WorkflowError(Exception):
    """A step that is not allowed; the message says why, in the reader's language."""


class EditConflict(WorkflowError):
    """Someone else saved the case since the editor opened it."""

    def __init__(self):
        super().__init__(
            _(
                "Someone else saved this case while you were editing it. Nothing is lost: "
                "correct the problems named below and save again, and you will see their "
                "version beside yours, part by part, to merge."
            )
        )


def display_name(user):
    return user.get_full_name() or user.get_username()


def is_reviewer(user):
    return user.is_superuser or user.has_perm("cases.review_case")


def can_edit(user, case):
    """Editors edit their own drafts; reviewers any case not yet public; nobody a public one."""
    if case.status not in EDITABLE:
        return False
    if is_reviewer(user):
        return True
    return (
        user.has_perm("cases.change_case")
        and case.status != Status.IN_REVIEW
        and case.created_by_id == user.pk
    )
