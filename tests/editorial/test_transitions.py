"""The review workflow as functions: states, rights, audit, pending revisions."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from cases.editorial import transitions as workflow
from cases.editorial.transitions import WorkflowError
from cases.models import Case, CaseTransition, CaseVersion, Vocabulary
from tests.factories import CaseFactory, TermFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def draft(editor):
    return CaseFactory(
        public_id="IL-0100",
        status=Status.DRAFT,
        published_at=None,
        created_by=editor,
        last_edited_by=editor,
    )


def test_the_whole_path_from_draft_to_published(draft, editor, reviewer):
    workflow.case_submit(case=draft, user=editor)
    workflow.case_request_changes(case=draft, user=reviewer, note="Cite the status page.")
    workflow.case_submit(case=draft, user=editor)
    published = workflow.case_approve(case=draft, user=reviewer)
    assert published.status == Status.PUBLISHED and published.published_at
    assert published.reviewed_by == "Rita Park" and published.reviewed_at
    steps = list(
        CaseTransition.objects.filter(case=draft).values_list(
            "from_status", "to_status", "user__username", "note"
        )
    )
    assert steps == [
        ("draft", "in_review", "eddie", ""),
        ("in_review", "changes_requested", "rita", "Cite the status page."),
        ("changes_requested", "in_review", "eddie", ""),
        ("in_review", "published", "rita", ""),
    ]
    assert list(Case.objects.public()) == [published]


def test_withdraw_and_reopen(draft, editor, reviewer):
    workflow.case_submit(case=draft, user=editor)
    workflow.case_approve(case=draft, user=reviewer)
    with pytest.raises(WorkflowError, match="needs a note"):
        workflow.case_withdraw(case=draft, user=reviewer, note="  ")
    withdrawn = workflow.case_withdraw(case=draft, user=reviewer, note="Source retracted.")
    assert withdrawn.status == Status.WITHDRAWN
    assert workflow.case_reopen(case=draft, user=reviewer).status == Status.DRAFT


@pytest.mark.parametrize(
    "status,action",
    [
        (Status.DRAFT, "approve"),
        (Status.DRAFT, "request_changes"),
        (Status.DRAFT, "withdraw"),
        (Status.IN_REVIEW, "submit"),
        (Status.PUBLISHED, "submit"),
        (Status.PUBLISHED, "approve"),
        (Status.WITHDRAWN, "approve"),
        (Status.CHANGES_REQUESTED, "approve"),
    ],
)
def test_transitions_from_the_wrong_state_are_refused(editor, second_reviewer, status, action):
    case = CaseFactory(
        status=status,
        created_by=editor,
        published_at=timezone.now() if status == Status.PUBLISHED else None,
    )
    function = getattr(workflow, f"case_{action}")
    with pytest.raises(WorkflowError, match="cannot be sent to"):
        function(case=case, user=second_reviewer, note="why")
    case.refresh_from_db()
    assert case.status == status
    assert not CaseTransition.objects.exists()


def test_editors_cannot_review(draft, editor):
    workflow.case_submit(case=draft, user=editor)
    other_editor = UserFactory(role="editor")
    for action in ("approve", "request_changes"):
        with pytest.raises(WorkflowError, match="do not have the right"):
            getattr(workflow, f"case_{action}")(case=draft, user=other_editor, note="x")


def test_a_reviewer_cannot_approve_what_they_submitted_or_last_edited(reviewer, second_reviewer):
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=reviewer)
    workflow.case_submit(case=case, user=reviewer)
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        workflow.case_approve(case=case, user=reviewer)
    edited = CaseFactory(status=Status.IN_REVIEW, published_at=None, last_edited_by=second_reviewer)
    with pytest.raises(WorkflowError, match="another reviewer must approve"):
        workflow.case_approve(case=edited, user=second_reviewer)
    assert workflow.case_approve(case=case, user=second_reviewer).status == Status.PUBLISHED


def test_an_editor_submits_only_their_own_drafts(draft):
    stranger = UserFactory(role="editor")
    with pytest.raises(WorkflowError, match="Only the case's author or a reviewer"):
        workflow.case_submit(case=draft, user=stranger)


def test_anonymous_and_unprivileged_users_can_do_nothing(draft):
    nobody = UserFactory(role=None)
    for user in (nobody, AnonymousUser()):
        assert workflow.available_transitions(user, draft) == []


def test_pending_revision_keeps_the_public_case_until_approved(editor, reviewer):
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    live = CaseFactory(
        public_id="IL-0200", title_en="Old title", summary_en="Old.", with_terms=[dns]
    )
    copy = workflow.case_start_revision(case=live, user=editor)
    assert copy.draft_of == live and copy.public_id == "IL-0200" and copy.status == Status.DRAFT
    assert [t.slug for t in copy.terms.all()] == ["dns"]
    assert workflow.case_start_revision(case=live, user=editor) == copy  # one copy per case

    copy.title_en = "New title"
    copy.last_edited_by = editor
    copy.save()
    workflow.case_submit(case=copy, user=editor)
    live.refresh_from_db()
    assert live.title_en == "Old title" and live.status == Status.PUBLISHED
    assert list(Case.objects.public()) == [live]

    result = workflow.case_approve(case=copy, user=reviewer)
    assert result.pk == live.pk
    live.refresh_from_db()
    assert live.title_en == "New title" and live.status == Status.PUBLISHED
    assert live.reviewed_by == "Rita Park"
    assert not Case.objects.filter(draft_of=live).exists()
    assert [t.slug for t in live.terms.all()] == ["dns"]
    assert CaseTransition.objects.filter(case=live, pending_revision=True).count() == 3
    assert CaseVersion.objects.filter(public_id="IL-0200").exists()


def test_withdraw_and_reopen_are_not_offered_on_a_pending_revision(editor, reviewer):
    live = CaseFactory(public_id="IL-0300")
    copy = workflow.case_start_revision(case=live, user=editor)
    copy.status = Status.PUBLISHED  # never happens through the workflow; guarded all the same
    assert workflow.refusal(reviewer, workflow.TRANSITIONS["withdraw"], copy)


def test_starting_a_revision_needs_a_published_case(draft, editor):
    with pytest.raises(WorkflowError, match="Only a published case"):
        workflow.case_start_revision(case=draft, user=editor)
