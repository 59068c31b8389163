"""Who is reviewing a case, and what its last review saw.

A reviewer claims a case in review ("Reviewing since 10:02 — Jun") so that two reviewers do
not read the same case at once; another may take the claim over, saying so, and the
claimant may release it. The claim ends by itself when the case leaves review: the workflow
calls `claim_end_with_review` in every transition (cases.editorial.transitions). At most
one claim of a case is active; the database holds that rule (ReviewClaim's conditional
unique constraint), and these functions lock the case so that two claims never race to it.

Claims, like comments, belong to the case itself (`case.root`): a pending revision under
review is claimed on its case, and the claim's record outlives the working copy.
"""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cases.models import Case, CaseTransition, CaseVersion, ReviewClaim

from .audit import PREFIX
from .rights import WorkflowError, display_name, is_reviewer

Status = Case.Status
End = ReviewClaim.End
# The transitions that end a review round: what the reviewer saw then is "the last review".
REVIEWS = (PREFIX + "changes_requested", PREFIX + "approved")


def active_claim(case):
    """The case's active claim, with its reviewer, or None."""
    return (
        ReviewClaim.objects.filter(case=case.draft_of_id or case.pk, ended_at__isnull=True)
        .select_related("reviewer")
        .first()
    )


def _locked_in_review(case, user):
    if not is_reviewer(user):
        raise WorkflowError(_("Only a reviewer can claim a case's review."))
    case = Case.objects.locked().get(pk=case.pk)
    if case.status != Status.IN_REVIEW:
        raise WorkflowError(
            _("Only a case in review can be claimed; this one is %(status)s.")
            % {"status": case.get_status_display().lower()}
        )
    return case


def _end(claim, *, end, by=None):
    claim.ended_at, claim.ended_by, claim.end = timezone.now(), by, end
    claim.save(update_fields=["ended_at", "ended_by", "end"])


def _create(case, user):
    try:
        with transaction.atomic():
            return ReviewClaim.objects.create(case_id=case.draft_of_id or case.pk, reviewer=user)
    except IntegrityError:  # a claim made meanwhile, around the lock (a shell, say)
        raise WorkflowError(_("Someone else is already reviewing this case.")) from None


def claim_take(*, case, user):
    """Claim the review of a case in review; a claim the user already holds is kept."""
    with transaction.atomic():
        case = _locked_in_review(case, user)
        current = active_claim(case)
        if current is not None:
            if current.reviewer_id == user.pk:
                return current
            raise WorkflowError(
                _("%(name)s is already reviewing this case; take it over if you must.")
                % {"name": display_name(current.reviewer)}
            )
        return _create(case, user)


def claim_take_over(*, case, user):
    """Take another reviewer's claim over, explicitly; their claim ends, saying by whom."""
    with transaction.atomic():
        case = _locked_in_review(case, user)
        current = active_claim(case)
        if current is not None:
            if current.reviewer_id == user.pk:
                return current
            _end(current, end=End.TAKEN_OVER, by=user)
        return _create(case, user)


def claim_release(*, case, user):
    """The claimant lets the case go back to the queue unclaimed."""
    with transaction.atomic():
        Case.objects.locked().only("pk").get(pk=case.pk)
        current = active_claim(case)
        if current is None:
            raise WorkflowError(_("Nobody is reviewing this case."))
        if current.reviewer_id != user.pk and not user.is_superuser:
            raise WorkflowError(
                _("Only %(name)s can release their claim; take it over instead.")
                % {"name": display_name(current.reviewer)}
            )
        _end(current, end=End.RELEASED, by=user)


def claim_end_with_review(*, case):
    """End the case's claim: the workflow calls this in every transition, inside its own
    transaction (a case leaves review, or a new round of review begins)."""
    ReviewClaim.objects.filter(case=case.draft_of_id or case.pk, ended_at__isnull=True).update(
        ended_at=timezone.now(), end=End.REVIEW_ENDED
    )


# --- the last review ----------------------------------------------------------------------


def last_review(case):
    """(transition, version) of the case's last review (changes requested, or approved) and
    the version in force then; (None, None) before its first review. The version is None
    when the history does not reach back to the review (a case never saved since import).

    Approving records the transition, then the approved state: a snapshot saved just after
    it, in the same transaction. Requesting changes records no version: the last one saved
    before it is what the reviewer read.
    """
    root_pk = case.draft_of_id or case.pk
    review = (
        CaseTransition.objects.filter(case=root_pk, action__in=REVIEWS)
        .order_by("-at", "-pk")
        .first()
    )
    if review is None:
        return None, None
    versions = CaseVersion.objects.filter(case=root_pk)
    version = None
    if review.action == PREFIX + "approved":
        version = (
            versions.filter(event=CaseVersion.Event.APPROVED, saved_at__gte=review.at)
            .order_by("number")
            .first()
        )
    if version is None:
        version = versions.filter(saved_at__lte=review.at).order_by("-number").first()
    return review, version


def current_version(case):
    """The case's latest saved version: its working copy's for a pending revision."""
    return (
        CaseVersion.objects.filter(
            case=case.draft_of_id or case.pk, pending_revision=bool(case.draft_of_id)
        )
        .order_by("-number")
        .first()
    )
