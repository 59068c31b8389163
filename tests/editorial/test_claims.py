"""Who is reviewing a case: claims, taking over, releasing, and the end of a claim when the
case leaves review; when a case was submitted; what its last review saw."""

import datetime

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from cases.editorial import claims, drafts
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.models import Case, ReviewClaim
from cases.models.review import ClaimEnd
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def in_review(editor):
    case = CaseFactory(
        status=Status.DRAFT, published_at=None, created_by=editor, last_edited_by=editor
    )
    return workflow.case_submit(case=case, user=editor)


def test_a_reviewer_claims_a_case_in_review(in_review, jun):
    claim = claims.claim_take(case=in_review, user=jun)
    assert claim.reviewer == jun and claim.ended_at is None
    assert claims.active_claim(in_review) == claim
    assert claims.claim_take(case=in_review, user=jun) == claim  # claiming twice keeps it


def test_another_reviewer_is_told_who_has_it_and_may_take_it_over(in_review, jun, mina):
    first = claims.claim_take(case=in_review, user=jun)
    with pytest.raises(WorkflowError, match="Jun is already reviewing this case"):
        claims.claim_take(case=in_review, user=mina)
    second = claims.claim_take_over(case=in_review, user=mina)
    first.refresh_from_db()
    assert first.end == ClaimEnd.TAKEN_OVER and first.ended_by == mina and first.ended_at
    assert claims.active_claim(in_review) == second and second.reviewer == mina


def test_only_the_claimant_releases(in_review, jun, mina):
    claims.claim_take(case=in_review, user=jun)
    with pytest.raises(WorkflowError, match="Only Jun can release their claim"):
        claims.claim_release(case=in_review, user=mina)
    claims.claim_release(case=in_review, user=jun)
    assert claims.active_claim(in_review) is None
    assert ReviewClaim.objects.get().end == ClaimEnd.RELEASED
    with pytest.raises(WorkflowError, match="Nobody is reviewing"):
        claims.claim_release(case=in_review, user=jun)


@pytest.mark.parametrize("status", [Status.DRAFT, Status.CHANGES_REQUESTED, Status.PUBLISHED])
def test_only_a_case_in_review_is_claimed(editor, jun, status):
    case = CaseFactory(status=status, created_by=editor)
    with pytest.raises(WorkflowError, match="Only a case in review can be claimed"):
        claims.claim_take(case=case, user=jun)


def test_editors_do_not_claim(in_review, editor):
    with pytest.raises(WorkflowError, match="Only a reviewer can claim"):
        claims.claim_take(case=in_review, user=editor)
    assert not ReviewClaim.objects.exists()


def test_the_database_holds_one_active_claim_a_case(in_review, jun, mina):
    claims.claim_take(case=in_review, user=jun)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewClaim.objects.create(case=in_review, reviewer=mina)


@pytest.mark.parametrize("leave", ["approve", "request_changes"])
def test_the_claim_ends_when_the_case_leaves_review(in_review, jun, leave):
    claims.claim_take(case=in_review, user=jun)
    getattr(workflow, f"case_{leave}")(case=in_review, user=jun, note="Why")
    claim = ReviewClaim.objects.get()
    assert claim.end == ClaimEnd.REVIEW_ENDED and claim.ended_at
    assert claims.active_claim(in_review) is None


def test_a_new_submission_starts_unclaimed(in_review, editor, jun):
    claims.claim_take(case=in_review, user=jun)
    # A claim left over by a status an import set: the next round starts without it.
    Case.objects.filter(pk=in_review.pk).update(status=Status.DRAFT)
    workflow.case_submit(case=in_review, user=editor)
    assert claims.active_claim(in_review) is None


def test_a_refused_transition_keeps_the_claim(in_review, jun):
    claims.claim_take(case=in_review, user=jun)
    with pytest.raises(WorkflowError, match="needs a note"):
        workflow.case_request_changes(case=in_review, user=jun, note="")
    Case.objects.filter(pk=in_review.pk).update(ko_stale=True)
    with pytest.raises(WorkflowError, match="Korean may lag"):
        workflow.case_approve(case=in_review, user=jun)
    assert claims.active_claim(in_review).reviewer == jun


def test_a_pending_revision_is_claimed_on_its_case(editor, jun):
    live = CaseFactory(created_by=editor)
    copy = workflow.case_start_revision(case=live, user=editor)
    workflow.case_submit(case=copy, user=editor)
    claim = claims.claim_take(case=copy, user=jun)
    assert claim.case == live
    workflow.case_approve(case=copy, user=jun)
    claim.refresh_from_db()
    assert claim.end == ClaimEnd.REVIEW_ENDED


# --- when it was submitted ----------------------------------------------------------------


def test_submitting_sets_submitted_at(in_review, editor, jun):
    first = in_review.submitted_at
    assert first and abs(timezone.now() - first) < datetime.timedelta(minutes=1)
    workflow.case_request_changes(case=in_review, user=jun, note="Why")
    again = workflow.case_submit(case=in_review, user=editor)
    assert again.submitted_at > first


# --- what the last review saw -------------------------------------------------------------


def save(case, user, **changes):
    from cases.editorial.revisions import exchange_form

    data = exchange_form(case)
    data.update(changes)
    return drafts.case_save(case=case, data=data, user=user)


def test_no_review_yet(editor):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    assert claims.last_review(case) == (None, None)


def test_the_version_at_the_last_request_for_changes(editor, jun):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    save(case, editor, summary={"en": "First.", "ko": "첫째."})
    workflow.case_submit(case=case, user=editor)
    workflow.case_request_changes(case=case, user=jun, note="More.")
    reviewed = claims.current_version(case)
    save(case, editor, summary={"en": "Second.", "ko": "둘째."})
    review, version = claims.last_review(case)
    assert review.action == "incidentlib.case.changes_requested"
    assert version == reviewed and version.data["summary"]["en"] == "First."
    assert claims.current_version(case).data["summary"]["en"] == "Second."


def test_the_version_at_the_last_approval_of_a_revised_case(editor, jun):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    save(case, editor, summary={"en": "Approved text.", "ko": "승인된 글."})
    workflow.case_submit(case=case, user=editor)
    workflow.case_approve(case=case, user=jun)
    copy = workflow.case_start_revision(case=case, user=editor)
    save(copy, editor, summary={"en": "Revised text.", "ko": "고친 글."})
    review, version = claims.last_review(copy)
    assert review.action == "incidentlib.case.approved"
    assert version.event == "approved" and version.data["summary"]["en"] == "Approved text."
    current = claims.current_version(copy)
    assert current.pending_revision and current.data["summary"]["en"] == "Revised text."


def test_scheduling_the_publication_leaves_the_claim_until_it_is_published(
    reviewer, second_reviewer, editor
):
    """Scheduling checks the step as the workflow would, but makes no step: the case stays
    in review, and so does its reviewer's claim, until the publication is made."""
    import datetime

    from django.utils import timezone

    from cases.editorial import scheduling
    from cases.editorial.claims import active_claim, claim_take
    from tests.factories import CaseFactory

    case = CaseFactory(
        status=Case.Status.IN_REVIEW, published_at=None, created_by=editor, submitted_by=editor
    )
    claim_take(case=case, user=reviewer)
    scheduling.case_schedule(
        case=case,
        user=reviewer,
        action="approve",
        run_at=timezone.now() + datetime.timedelta(hours=2),
    )
    assert active_claim(case).reviewer == reviewer
