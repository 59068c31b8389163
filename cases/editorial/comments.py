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

import re
from typing import NamedTuple

from django.conf import settings
from django.db import transaction
from django.db.models import Prefetch, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.models import Case, CaseComment, CaseStep, CommentReply
from cases.rules import number

from . import history
from .rights import WorkflowError, is_reviewer

Status = Case.Status

MAX_TEXT_LENGTH = 5_000  # a comment or a reply; a remark, not a case
MAX_PATH_LENGTH = 100  # CaseComment.field_path
# Comments are added while a reviewer has the case: in review, or just sent back.
COMMENTABLE = (Status.IN_REVIEW, Status.CHANGES_REQUESTED)

# --- field paths --------------------------------------------------------------------------

LANGUAGE_NAMES = dict(settings.LANGUAGES)
# Texts written in each language: a comment names one of the two.
TEXT_LABELS = {
    "title": gettext_lazy("Title"),
    "summary": gettext_lazy("Summary"),
    "symptoms_text": gettext_lazy("Symptoms"),
    "trigger": gettext_lazy("Trigger"),
    "detection": gettext_lazy("Detection"),
    "lessons": gettext_lazy("Lessons"),
    "impact.scope": gettext_lazy("Impact: scope"),
    "impact.users": gettext_lazy("Impact: users"),
    "impact.region": gettext_lazy("Impact: region"),
}
# Fields in no language, in the order of the case form.
PLAIN_LABELS = {
    "id": gettext_lazy("Id"),
    "org": gettext_lazy("Organisation"),
    "date": gettext_lazy("Date"),
    "date_kind": gettext_lazy("Date kind"),
    "severity": gettext_lazy("Severity"),
    "root_cause": gettext_lazy("Cause"),
    "timeline.detected_after": gettext_lazy("Detected after"),
    "timeline.resolved_after": gettext_lazy("Resolved after"),
    "recurrence_of": gettext_lazy("Recurrence of"),
    "docs": gettext_lazy("Documentation links"),
    "url": gettext_lazy("Canonical address"),
    "review.written_by": gettext_lazy("Written by"),
    "domain": gettext_lazy("Domains"),
    "symptoms": gettext_lazy("Symptom terms"),
    "components": gettext_lazy("Components"),
    "contributing": gettext_lazy("Contributing factors"),
    "remediation": gettext_lazy("Remediation"),
    "action_items": gettext_lazy("Follow-up actions"),
    "sources": gettext_lazy("Sources"),
    "related": gettext_lazy("Related cases"),
}
# Lists whose items may be commented on one by one: (kind of step, or None for sources).
ITEM_LISTS = {
    "remediation": CaseStep.Kind.REMEDIATION,
    "action_items": CaseStep.Kind.ACTION_ITEM,
    "sources": None,
}
ITEM_LABELS = {
    "remediation": gettext_lazy("Remediation step %(n)s"),
    "action_items": gettext_lazy("Follow-up action %(n)s"),
    "sources": gettext_lazy("Source %(n)s"),
}
MISSING_ITEM = {
    "remediation": gettext_lazy("%(id)s has no remediation step %(n)s."),
    "action_items": gettext_lazy("%(id)s has no follow-up action %(n)s."),
    "sources": gettext_lazy("%(id)s has no source %(n)s."),
}
# `name`, `name[index]`, each with `.en` or `.ko`; the name is the shortest that fits, so
# `impact.scope.en` is impact.scope in English, `timeline.detected_after` a plain field.
PATH = re.compile(
    r"(?P<name>[a-z_]+(?:\.[a-z_]+)??)(?:\[(?P<index>0|[1-9][0-9]{0,3})\])?(?:\.(?P<language>en|ko))?"
)


class FieldPath(NamedTuple):
    name: str  # "trigger", "impact.scope", "remediation", "timeline.detected_after"
    index: int | None  # of an item of a list: remediation[2] is 2
    language: str | None


def parse_path(path):
    """The parts of a known field path, or None."""
    if not isinstance(path, str) or len(path) > MAX_PATH_LENGTH:
        return None
    match = PATH.fullmatch(path)
    if match is None:
        return None
    index = match["index"]
    parsed = FieldPath(match["name"], None if index is None else int(index), match["language"])
    return parsed if _label(parsed) is not None else None


def _label(parsed):
    name, index, language = parsed
    if name in TEXT_LABELS:
        if index is not None or language is None:
            return None
        label = TEXT_LABELS[name]
    elif index is not None:
        if name not in ITEM_LISTS or (name == "sources" and language):
            return None
        label = ITEM_LABELS[name] % {"n": index + 1}
    elif name in PLAIN_LABELS and language is None:
        label = PLAIN_LABELS[name]
    else:
        return None
    if language:
        return _("%(field)s, %(language)s") % {
            "field": label,
            "language": LANGUAGE_NAMES[language],
        }
    return str(label)


def field_label(path):
    """How a reader calls the field a path names ("Remediation step 3, Korean"), in their
    language; None for a path that names no field."""
    parsed = parse_path(path)
    return _label(parsed) if parsed else None


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


def is_editor(user, root):
    """The case's editors: who created, last edited or submitted it or its working copy, or
    wrote any version of it since its last approval."""
    if not user.has_perm("cases.change_case"):
        return False
    people = {pk for row in _cases_of(root) for pk in row if pk}
    return user.pk in people or user.pk in history.authors_since_approval(root)


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
        case = (
            Case.objects.select_for_update(of=("self",)).select_related("draft_of").get(pk=case.pk)
        )
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
            raise WorkflowError(_("This comment is open."))
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
