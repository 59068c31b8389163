"""Review comments on a case's fields: a reviewer's remark on `trigger.ko` or on the third
remediation step, answered and resolved where the field is, rather than one note for the
whole case when changes are requested.

A comment names its field by the field's path in the exchange format (docs/case-format.md),
in one language where the field is translated: `title.en`, `impact.scope.ko`,
`remediation[2].ko`, `sources`, `timeline.detected_after`. Paths are checked here, against
the case as it is, and each has a label in the reader's language ("Trigger, Korean").

Comments belong to the case itself (`case.root`): a pending revision's working copy is
deleted when it is approved, and its comments stay with the case, resolved ones in its
timeline. They block nothing: a case is submitted and approved with comments still open.
"""

from typing import NamedTuple

from django.db import transaction
from django.db.models import Prefetch, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.models import Case, CaseComment, CommentReply
from cases.rules import number

from . import history
from .fields import ITEM_LISTS, LANGUAGE_NAMES, PLAIN_LABELS, TEXT_LABELS, field_label, parse_path
from .rights import WorkflowError, is_reviewer

Status = Case.Status

MAX_TEXT_LENGTH = 5_000  # a comment or a reply; a remark, not a case
# Comments are added while a reviewer has the case: in review, or just sent back.
COMMENTABLE = (Status.IN_REVIEW, Status.CHANGES_REQUESTED)

# --- field paths --------------------------------------------------------------------------

MISSING_ITEM = {
    "remediation": gettext_lazy("%(id)s has no remediation step %(n)s."),
    "action_items": gettext_lazy("%(id)s has no follow-up action %(n)s."),
    "sources": gettext_lazy("%(id)s has no source %(n)s."),
}


def item_counts(case):
    """{"remediation": 3, "action_items": 0, "sources": 2} of a case as it is stored."""
    counts = dict.fromkeys(ITEM_LISTS, 0)
    kinds = {kind: name for name, kind in ITEM_LISTS.items() if kind}
    for kind in case.steps.values_list("kind", flat=True):
        if kind in kinds:
            counts[kinds[kind]] += 1
    counts["sources"] = case.sources.count()
    return counts


def commentable_fields(case):
    """[(path, label)] of every field of the case, in the order of its form: what a reviewer
    chooses from. Two queries (its steps and its sources)."""
    counts = item_counts(case)
    paths = []
    plain = list(PLAIN_LABELS)
    for name in plain[: plain.index("root_cause")]:
        paths.append(name)
    for name in TEXT_LABELS:
        if not name.startswith("impact."):
            paths += [f"{name}.{language}" for language in LANGUAGE_NAMES]
    paths.append("root_cause")
    for name in TEXT_LABELS:
        if name.startswith("impact."):
            paths += [f"{name}.{language}" for language in LANGUAGE_NAMES]
    for name in plain[plain.index("root_cause") + 1 :]:
        paths.append(name)
        for index in range(counts.get(name, 0)):
            paths.append(f"{name}[{index}]")
            if ITEM_LISTS[name]:
                paths += [f"{name}[{index}].{language}" for language in LANGUAGE_NAMES]
    return [(path, field_label(path)) for path in paths]


def checked_path(case, path):
    """The path, if it names a field of this case; otherwise WorkflowError saying why."""
    if not path:
        raise WorkflowError(_("Choose the field the comment is about."))
    parsed = parse_path(path)
    if parsed is None:
        raise WorkflowError(_("Unknown field: %(path)s.") % {"path": repr(str(path)[:60])})
    if parsed.index is not None and parsed.index >= item_counts(case)[parsed.name]:
        raise WorkflowError(
            MISSING_ITEM[parsed.name] % {"id": case.public_id, "n": parsed.index + 1}
        )
    return path


def checked_text(text, empty_message):
    text = (text or "").strip()
    if not text:
        raise WorkflowError(empty_message)
    if len(text) > MAX_TEXT_LENGTH:
        raise WorkflowError(
            _("A comment is at most %(max)s characters long, not %(count)s.")
            % {"max": number(MAX_TEXT_LENGTH), "count": number(len(text))}
        )
    if "\x00" in text:
        raise WorkflowError(_("A comment must not contain a NUL character."))
    return text


# --- who may ----------------------------------------------------------------------------


def _cases_of(root):
    """The case and its pending revision's working copy, if any: their editorial columns."""
    return Case.objects.filter(Q(pk=root.pk) | Q(draft_of=root.pk)).values_list(
        "created_by", "last_edited_by", "submitted_by"
    )


def is_author(user, root):
    """Whoever created the case, or started its pending revision."""
    return any(user.pk == created_by for created_by, _edited, _submitted in _cases_of(root))


def editor_ids(root):
    """The primary keys of the case's editors: who created, last edited or submitted it or
    its working copy, or wrote any version of it since its last approval."""
    people = {pk for row in _cases_of(root) for pk in row if pk}
    return people | history.authors_since_approval(root)


def is_editor(user, root):
    """Whether the user is one of the case's editors (editor_ids) and may still edit."""
    return user.has_perm("cases.change_case") and user.pk in editor_ids(root)


def may_reply(user, root):
    """Whether the user answers comments on this case: its editors, and reviewers."""
    return is_reviewer(user) or is_editor(user, root)


def may_resolve(user, root):
    """Whether the user resolves and reopens comments on this case: its author, and
    reviewers."""
    return is_reviewer(user) or (user.has_perm("cases.change_case") and is_author(user, root))


# --- the writes -------------------------------------------------------------------------


def _locked(comment):
    return (
        CaseComment.objects.select_for_update(of=("self",))
        .select_related("case")
        .get(pk=comment.pk)
    )


def comment_add(*, case, user, field_path, text):
    """A reviewer's comment on one field of a case in review or sent back for changes. On a
    pending revision it is made on its case, and says so."""
    if not is_reviewer(user):
        raise WorkflowError(_("Only reviewers add comments to a case's fields."))
    text = checked_text(text, _("Write the comment first."))
    with transaction.atomic():
        # Locked as the workflow locks it: no comment on a case leaving review meanwhile.
        case = Case.objects.locked().select_related("draft_of").get(pk=case.pk)
        if case.status not in COMMENTABLE:
            raise WorkflowError(
                _(
                    "Comments are made on a case in review or sent back for changes; "
                    "this one is %(status)s."
                )
                % {"status": case.get_status_display().lower()}
            )
        path = checked_path(case, field_path)
        return CaseComment.objects.create(
            case=case.root,
            field_path=path,
            text=text,
            author=user,
            on_pending_revision=bool(case.draft_of_id),
        )


def comment_reply(*, comment, user, text):
    """An answer in a comment's thread, by one of the case's editors or a reviewer."""
    text = checked_text(text, _("Write the reply first."))
    with transaction.atomic():
        comment = _locked(comment)
        if not may_reply(user, comment.case):
            raise WorkflowError(_("Only the case's editors and reviewers answer its comments."))
        return CommentReply.objects.create(comment=comment, text=text, author=user)


def comment_resolve(*, comment, user, note=""):
    """Mark a comment done, by the case's author or a reviewer; `note`, if any, is their
    last reply, written in the same step."""
    note = (note or "").strip()
    if note:
        note = checked_text(note, "")
    with transaction.atomic():
        comment = _locked(comment)
        if not may_resolve(user, comment.case):
            raise WorkflowError(_("Only the case's author or a reviewer resolves a comment."))
        if comment.is_resolved:
            raise WorkflowError(_("This comment is already resolved."))
        if note:
            CommentReply.objects.create(comment=comment, text=note, author=user)
        comment.resolved_at, comment.resolved_by = timezone.now(), user
        comment.save(update_fields=["resolved_at", "resolved_by"])
        return comment


def comment_reopen(*, comment, user):
    """Open a resolved comment again: it was not done after all."""
    with transaction.atomic():
        comment = _locked(comment)
        if not may_resolve(user, comment.case):
            raise WorkflowError(_("Only the case's author or a reviewer resolves a comment."))
        if not comment.is_resolved:
            raise WorkflowError(_("This comment is already open."))
        comment.resolved_at = comment.resolved_by = None
        comment.save(update_fields=["resolved_at", "resolved_by"])
        return comment


# --- reading ----------------------------------------------------------------------------


def threads_of(case):
    """Every comment of the case (of its case, for a working copy), oldest first, with its
    author, resolver and replies: two queries."""
    replies = CommentReply.objects.select_related("author").order_by("created", "pk")
    return list(
        CaseComment.objects.filter(case=case.draft_of_id or case.pk)
        .select_related("author", "resolved_by")
        .prefetch_related(Prefetch("replies", queryset=replies))
        .order_by("created", "pk")
    )


class TimelineEntry(NamedTuple):
    at: object  # datetime
    kind: str  # "transition" or "comment"
    item: object


def timeline_of(case, *, transitions, threads=None):
    """The case's workflow steps and its resolved comments, newest first: a comment stands
    where it was made, among the steps of the review it belonged to."""
    if threads is None:
        threads = threads_of(case)
    entries = [TimelineEntry(step.at, "transition", step) for step in transitions]
    entries += [TimelineEntry(c.created, "comment", c) for c in threads if c.is_resolved]
    return sorted(entries, key=lambda entry: entry.at, reverse=True)


def mine(user):
    """The cases that are a user's: created, last edited or submitted by them."""
    return Q(created_by=user) | Q(last_edited_by=user) | Q(submitted_by=user)


def open_comments_on_cases_of(user):
    """How many comments are open on the user's cases (or on the pending revisions they
    work on): one query."""
    roots = Case.objects.filter(mine(user)).annotate(root=Coalesce("draft_of", "pk")).values("root")
    return CaseComment.objects.open().filter(case__in=roots).count()


def open_comments_by(user):
    """How many of the comments a reviewer wrote are still open: one query."""
    return CaseComment.objects.open().filter(author=user).count()
