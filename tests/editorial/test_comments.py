"""Review comments on a case's fields: who may add, answer, resolve and reopen them, the
field paths they name, and where they stay once a pending revision is approved."""

import pytest
from django.utils import timezone

from cases.editorial import comments, fields
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.models import Case, CaseComment, CommentReply
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def in_review(editor):
    return CaseFactory(
        public_id="IL-0100",
        status=Status.IN_REVIEW,
        published_at=None,
        created_by=editor,
        last_edited_by=editor,
        submitted_by=editor,
    )


# --- the finding: feedback was one note per transition ----------------------------------


def test_a_reviewer_gives_feedback_on_several_fields_not_one_note(in_review, editor, reviewer):
    """Requesting changes took one note for the whole case; now each remark names its field,
    and the editor answers each on its own."""
    trigger = comments.comment_add(
        case=in_review, user=reviewer, field_path="trigger.ko", text="Translate the trigger."
    )
    summary = comments.comment_add(
        case=in_review, user=reviewer, field_path="summary.en", text="Say which queue."
    )
    workflow.case_request_changes(case=in_review, user=reviewer, note="See the comments.")

    comments.comment_reply(comment=trigger, user=editor, text="Done, please check.")
    comments.comment_resolve(comment=summary, user=editor)

    threads = {c.field_path: c for c in comments.threads_of(in_review)}
    assert set(threads) == {"trigger.ko", "summary.en"}
    assert fields.field_label("trigger.ko") == "Trigger, Korean"
    assert [r.text for r in threads["trigger.ko"].replies.all()] == ["Done, please check."]
    assert not threads["trigger.ko"].is_resolved
    assert threads["summary.en"].is_resolved and threads["summary.en"].resolved_by == editor


# --- field paths ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,label",
    [
        ("title.en", "Title, English"),
        ("trigger.ko", "Trigger, Korean"),
        ("impact.scope.en", "Impact: scope, English"),
        ("remediation[2].ko", "Remediation step 3, Korean"),
        ("remediation[0]", "Remediation step 1"),
        ("action_items[1].en", "Follow-up action 2, English"),
        ("sources", "Sources"),
        ("sources[0]", "Source 1"),
        ("components", "Components"),
        ("root_cause", "Cause"),
        ("timeline.detected_after", "Detected after"),
        ("review.written_by", "Written by"),
    ],
)
def test_each_field_path_has_a_human_label(path, label):
    assert fields.field_label(path) == label


@pytest.mark.parametrize(
    "path,words",
    [
        ("", "Choose the field"),
        ("title", "Unknown field"),  # a translated text is commented on in one language
        ("title.fr", "Unknown field"),
        ("impact.scope", "Unknown field"),
        ("remediation[-1].ko", "Unknown field"),
        ("remediation[01].ko", "Unknown field"),
        ("status", "Unknown field"),
        ("title.en\n", "Unknown field"),
        ("x" * 500, "Unknown field"),
        ("remediation[2].ko", "has no remediation step 3"),
        ("sources[0]", "has no source 1"),
    ],
)
def test_an_unknown_field_path_is_refused_with_a_message(in_review, reviewer, path, words):
    CaseStepFactory(case=in_review, position=0)
    with pytest.raises(WorkflowError, match=words):
        comments.comment_add(case=in_review, user=reviewer, field_path=path, text="Hm.")
    assert not CaseComment.objects.exists()


def test_a_step_or_source_that_exists_may_be_commented_on(in_review, reviewer):
    for position in range(3):
        CaseStepFactory(case=in_review, position=position)
    SourceFactory(case=in_review)
    step = comments.comment_add(
        case=in_review, user=reviewer, field_path="remediation[2].ko", text="Say how."
    )
    source = comments.comment_add(case=in_review, user=reviewer, field_path="sources[0]", text="?")
    assert (step.field_path, source.field_path) == ("remediation[2].ko", "sources[0]")


def test_the_choices_list_every_field_of_the_case(in_review):
    CaseStepFactory(case=in_review, position=0)
    paths = dict(comments.commentable_fields(in_review))
    assert paths["trigger.ko"] == "Trigger, Korean"
    assert paths["remediation[0].en"] == "Remediation step 1, English"
    assert "remediation[1].en" not in paths
    for path in paths:
        assert fields.field_label(path)


# --- who may do what --------------------------------------------------------------------


@pytest.mark.parametrize(
    "status,allowed",
    [
        (Status.DRAFT, False),
        (Status.IN_REVIEW, True),
        (Status.CHANGES_REQUESTED, True),
        (Status.PUBLISHED, False),
        (Status.WITHDRAWN, False),
    ],
)
def test_reviewers_comment_on_cases_in_review_or_sent_back(editor, reviewer, status, allowed):
    case = CaseFactory(status=status, created_by=editor)
    if allowed:
        comment = comments.comment_add(case=case, user=reviewer, field_path="title.en", text="x")
        assert comment.case == case and comment.author == reviewer
    else:
        with pytest.raises(WorkflowError, match="in review or sent back"):
            comments.comment_add(case=case, user=reviewer, field_path="title.en", text="x")


def test_editors_and_strangers_do_not_add_comments(in_review, editor):
    for user in (editor, UserFactory(role=None)):
        with pytest.raises(WorkflowError, match="Only reviewers"):
            comments.comment_add(case=in_review, user=user, field_path="title.en", text="x")


def test_an_empty_or_overlong_comment_is_refused(in_review, reviewer):
    with pytest.raises(WorkflowError, match="Write the comment"):
        comments.comment_add(case=in_review, user=reviewer, field_path="title.en", text="  \n")
    with pytest.raises(WorkflowError, match="at most 5,000 characters"):
        comments.comment_add(case=in_review, user=reviewer, field_path="title.en", text="x" * 5001)
    with pytest.raises(WorkflowError, match="NUL"):
        comments.comment_add(case=in_review, user=reviewer, field_path="title.en", text="a\x00")


@pytest.fixture
def comment(in_review, reviewer):
    return comments.comment_add(
        case=in_review, user=reviewer, field_path="trigger.ko", text="Translate it."
    )


def test_the_case_editors_and_reviewers_reply(comment, editor, reviewer):
    comments.comment_reply(comment=comment, user=editor, text="Which part?")
    comments.comment_reply(comment=comment, user=UserFactory(role="reviewer"), text="All of it.")
    comments.comment_reply(comment=comment, user=reviewer, text="Yes.")
    assert list(CommentReply.objects.values_list("author__username", "text")) == [
        ("eddie", "Which part?"),
        (CommentReply.objects.all()[1].author.username, "All of it."),
        ("rita", "Yes."),
    ]


def test_another_editor_may_not_reply(comment):
    with pytest.raises(WorkflowError, match="Only the case's editors and reviewers"):
        comments.comment_reply(comment=comment, user=UserFactory(role="editor"), text="Hi")
    with pytest.raises(WorkflowError, match="Write the reply"):
        comments.comment_reply(comment=comment, user=comment.author, text=" ")
    assert not CommentReply.objects.exists()


def test_the_author_or_any_reviewer_resolves_and_reopens(comment, editor):
    other_editor = UserFactory(role="editor")
    with pytest.raises(WorkflowError, match="Only the case's author or a reviewer"):
        comments.comment_resolve(comment=comment, user=other_editor)
    resolved = comments.comment_resolve(comment=comment, user=editor, note="Translated.")
    assert resolved.resolved_by == editor and resolved.resolved_at
    assert [r.text for r in resolved.replies.all()] == ["Translated."]
    with pytest.raises(WorkflowError, match="already resolved"):
        comments.comment_resolve(comment=comment, user=editor)
    with pytest.raises(WorkflowError, match="Only the case's author or a reviewer"):
        comments.comment_reopen(comment=comment, user=other_editor)
    another_reviewer = UserFactory(role="reviewer")
    reopened = comments.comment_reopen(comment=comment, user=another_reviewer)
    assert reopened.resolved_at is None and reopened.resolved_by is None
    with pytest.raises(WorkflowError, match="is already open"):
        comments.comment_reopen(comment=comment, user=another_reviewer)


def test_open_comments_block_nothing(in_review, comment, editor, reviewer):
    workflow.case_request_changes(case=in_review, user=reviewer, note="See the comments.")
    workflow.case_submit(case=in_review, user=editor)
    published = workflow.case_approve(case=in_review, user=UserFactory(role="reviewer"))
    assert published.status == Status.PUBLISHED
    assert CaseComment.objects.open().count() == 1


# --- a pending revision -----------------------------------------------------------------


def test_comments_on_a_pending_revision_outlive_its_working_copy(editor, reviewer):
    live = CaseFactory(public_id="IL-0200", created_by=editor)
    copy = workflow.case_start_revision(case=live, user=editor)
    workflow.case_submit(case=copy, user=editor)
    comment = comments.comment_add(case=copy, user=reviewer, field_path="title.ko", text="Hm.")
    assert comment.case == live and comment.on_pending_revision
    # The editor who started the revision is its author: they resolve it.
    comments.comment_resolve(comment=comment, user=editor)
    workflow.case_approve(case=copy, user=reviewer)
    assert not Case.objects.filter(pk=copy.pk).exists()

    comment.refresh_from_db()
    assert comment.case == live and comment.is_resolved
    entries = comments.timeline_of(live, transitions=live.transitions.all())
    kinds = [(entry.kind, getattr(entry.item, "field_path", None)) for entry in entries]
    assert ("comment", "title.ko") in kinds
    assert [entry.at for entry in entries] == sorted((entry.at for entry in entries), reverse=True)


def test_a_comment_on_the_live_case_page_of_a_revision_is_refused(editor, reviewer):
    live = CaseFactory(public_id="IL-0201", created_by=editor)
    copy = workflow.case_start_revision(case=live, user=editor)
    workflow.case_submit(case=copy, user=editor)
    with pytest.raises(WorkflowError, match="in review or sent back"):
        comments.comment_add(case=live, user=reviewer, field_path="title.en", text="x")


# --- counts -----------------------------------------------------------------------------


def test_open_comment_counts_for_the_dashboard(
    in_review, comment, editor, reviewer, django_assert_num_queries
):
    comments.comment_add(case=in_review, user=reviewer, field_path="title.en", text="Shorter.")
    resolved = comments.comment_add(
        case=in_review, user=reviewer, field_path="lessons.en", text="."
    )
    comments.comment_resolve(comment=resolved, user=reviewer)
    someone_elses = CaseFactory(status=Status.IN_REVIEW, created_by=UserFactory(role="editor"))
    comments.comment_add(case=someone_elses, user=reviewer, field_path="title.en", text="x")
    with django_assert_num_queries(1):
        assert comments.open_comments_on_cases_of(editor) == 2
    with django_assert_num_queries(1):
        assert comments.open_comments_by(reviewer) == 3
    assert comments.open_comments_on_cases_of(reviewer) == 0


def test_comments_are_made_now(comment):
    assert abs((timezone.now() - comment.created).total_seconds()) < 60
