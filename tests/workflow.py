"""Changes made as editors make them, through the workflow."""

from cases.editorial import transitions as workflow
from cases.models import Case, CaseTerm


def approve_edit(case, editor, reviewer, terms=None, confirm_stale_korean=False, **fields):
    """A real edit of a public case: a revision edited, submitted and approved."""
    copy = workflow.case_start_revision(case=case, user=editor)
    Case.objects.filter(pk=copy.pk).update(last_edited_by=editor, **fields)
    if terms is not None:
        CaseTerm.objects.filter(case=copy).delete()
        CaseTerm.objects.bulk_create(
            CaseTerm(case=copy, term=term, position=n) for n, term in enumerate(terms)
        )
    workflow.case_submit(case=copy, user=editor)
    return workflow.case_approve(
        case=copy, user=reviewer, confirm_stale_korean=confirm_stale_korean
    )
