"""Saved versions of a case: recorded at every editorial save, compared, and read for who
wrote what since the last approval."""

import difflib

from django.db.models import Max, Q, Subquery
from django.db.models.functions import Coalesce

from cases.exchange.serialize import case_to_exchange
from cases.models import Case, CaseVersion

Event = CaseVersion.Event


def snapshot(case, *, user, event, reason=None, content=None):
    """Record the case as it is now (a pending revision is recorded under its case).
    `reason`, for the history page, defaults to the event's own words. `content`: the
    case's exchange form, where the caller has just written the case from it."""
    root = case.root
    if content is None:
        content = case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))
    # The next number, asked in the INSERT itself: one round trip (the case is locked).
    latest = (
        CaseVersion.objects.filter(public_id=root.public_id)
        .order_by()
        .values("public_id")
        .annotate(n=Max("number"))
        .values("n")
    )
    return CaseVersion.objects.create(
        case=root,
        public_id=root.public_id,
        number=Coalesce(Subquery(latest), 0) + 1,
        data=content,
        status=case.status,
        pending_revision=bool(case.draft_of_id),
        saved_by=user,
        event=event,
        reason=str(reason or Event(event).label),
    )


def ensure_first_version(case):
    """Before the first editorial save of an imported case, keep what the import wrote."""
    root = case.root
    if not CaseVersion.objects.filter(public_id=root.public_id).exists():
        snapshot(case, user=None, event=Event.BEFORE_FIRST_EDIT)


def authors_since_approval(case):
    """The primary keys of everyone who wrote any version of the case since it was last
    approved (of a never approved case: ever), its working copy's versions included.

    A version whose event is unknown (kept before events were recorded) counts as written.
    Who saved last counts too, for a save made outside the editorial functions.
    """
    root = case.root
    versions = CaseVersion.objects.filter(case=root)
    # (the last approval's number asked in the same query: one round trip per approval)
    approved = Coalesce(
        Subquery(
            versions.filter(event=Event.APPROVED)
            .order_by()
            .values("case")
            .annotate(n=Max("number"))
            .values("n")
        ),
        0,
    )
    written = versions.filter(number__gt=approved).filter(
        Q(event__in=CaseVersion.AUTHORING) | Q(event="")
    )
    authors = set(written.exclude(saved_by=None).values_list("saved_by", flat=True))
    if case.last_edited_by_id:
        authors.add(case.last_edited_by_id)
    return authors


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
