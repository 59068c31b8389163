"""Combining duplicates: one incident written up twice becomes one case.

Not to be confused with cases.editorial.merging, which reconciles two concurrent edits of
one case. Here an editor with `cases.merge_case` chooses the survivor; the other case is
absorbed:

- the survivor keeps its own text; the absorbed case's sources follow its own, but for
  those naming a page it cites already (cases.addresses);
- the cases related to the absorbed one, and its recurrences, are the survivor's;
- the absorbed case is withdrawn and a CaseMerge records where it went: its id answers 301
  with the survivor's page (and any case merged into it earlier now leads there too);
- both timelines say so (a transition each, and a version of the survivor).

One transaction, both cases locked and checked again under the lock: of two merges made at
once, the second sees what the first did.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from cases.caching import public_content_changed
from cases.catalogue.changes import states_before
from cases.models import Case, CaseMerge, CaseRelation, CaseVersion, Source

from . import history
from .audit import log
from .claims import claim_end_with_review
from .rights import WorkflowError

Status = Case.Status
PERMISSION = "cases.merge_case"


def is_absorbed(case):
    """Whether the case was merged into another (only a withdrawn one can have been)."""
    return case.status == Status.WITHDRAWN and CaseMerge.objects.filter(absorbed=case.pk).exists()


def combine_refusal(user, *, absorbed, survivor):
    """Why `absorbed` may not be merged into `survivor` now, or None if it may."""
    if not user.has_perm(PERMISSION):
        return _("You do not have the right to merge cases.")
    if absorbed.pk == survivor.pk:
        return _("A case cannot be merged into itself.")
    if absorbed.draft_of_id or survivor.draft_of_id:
        return _("A pending revision cannot be merged; merge its case.")
    for case in (absorbed, survivor):
        if is_absorbed(case):
            return _("%(id)s was merged into another case already.") % {"id": case.public_id}
    if survivor.status == Status.WITHDRAWN:
        return _("%(id)s is withdrawn: keep a case that is not.") % {"id": survivor.public_id}
    if absorbed.status == Status.PUBLISHED and survivor.status != Status.PUBLISHED:
        return _(
            "%(absorbed)s is published, and its readers must land on a published case: "
            "%(survivor)s is %(status)s. Keep %(absorbed)s instead, or publish %(survivor)s first."
        ) % {
            "absorbed": absorbed.public_id,
            "survivor": survivor.public_id,
            "status": survivor.get_status_display().lower(),
        }
    revision = (
        Case.objects.filter(draft_of__in=[absorbed.pk, survivor.pk]).select_related("draft_of")
    ).first()
    if revision is not None:
        # Its approval would write back the sources and links it holds, undoing the merge's.
        return _("%(id)s has a pending revision: approve it or send it back to draft first.") % {
            "id": revision.draft_of.public_id
        }
    return None


def case_combine(*, absorbed, survivor, user, note=""):
    """Merge the case `absorbed` into `survivor` (see the module): (the survivor, how many
    sources it gained), or WorkflowError saying why not."""
    note = (note or "").strip()
    with transaction.atomic():
        # Both locked, in one order whoever merges which into which: no deadlock.
        locked = {
            case.pk: case
            for case in Case.objects.locked()
            .filter(pk__in=[absorbed.pk, survivor.pk])
            .order_by("pk")
        }
        if absorbed.pk not in locked or survivor.pk not in locked:
            raise WorkflowError(_("One of the two cases was deleted meanwhile."))
        absorbed, survivor = locked[absorbed.pk], locked[survivor.pk]
        reason = combine_refusal(user, absorbed=absorbed, survivor=survivor)
        if reason:
            raise WorkflowError(reason)
        before = states_before([absorbed.pk, survivor.pk])
        for case in (absorbed, survivor):
            history.ensure_first_version(case)
        added = append_sources(absorbed, survivor)
        repoint_links(absorbed, survivor)
        CaseMerge.objects.filter(survivor=absorbed).update(survivor=survivor)
        CaseMerge.objects.create(
            absorbed=absorbed,
            absorbed_public_id=absorbed.public_id,
            survivor=survivor,
            merged_by=user,
            note=note,
        )
        claim_end_with_review(case=absorbed)
        from_status = absorbed.status
        absorbed.status = Status.WITHDRAWN
        absorbed.edit_version += 1
        absorbed.save(update_fields=["status", "edit_version", "modified"])
        survivor.edit_version += 1
        survivor.save(update_fields=["edit_version", "modified"])
        said = {"absorbed": absorbed.public_id, "survivor": survivor.public_id, "count": added}
        log(
            absorbed,
            "merged",
            from_status,
            Status.WITHDRAWN,
            user,
            join(_("Merged into %(survivor)s as its duplicate.") % said, note),
        )
        what = _("%(absorbed)s merged into this case as its duplicate; %(count)s source(s) added.")
        log(survivor, "absorbed", survivor.status, survivor.status, user, join(what % said, note))
        history.snapshot(survivor, user=user, event=CaseVersion.Event.SAVED, reason=what % said)
        public_content_changed(before)
        return survivor, added


def join(*texts):
    return " ".join(text for text in texts if text)


def append_sources(absorbed, survivor):
    """The absorbed case's sources after the survivor's own, but for those naming a page
    the survivor cites already; how many were added."""
    mine = list(survivor.sources.all())
    seen = {source.url_key for source in mine}
    position = max((source.position for source in mine), default=-1) + 1
    added = 0
    for source in absorbed.sources.order_by("position"):
        if source.url_key in seen:
            continue
        seen.add(source.url_key)
        Source.objects.create(
            case=survivor,
            position=position,
            url=source.url,
            kind=source.kind,
            archived=source.archived,
        )
        position += 1
        added += 1
    return added


def repoint_links(absorbed, survivor):
    """Relations and recurrences naming the absorbed case name the survivor instead (none
    of the survivor to itself, none twice)."""
    outgoing = set(
        CaseRelation.objects.filter(from_case=survivor).values_list("to_case", flat=True)
    )
    incoming = set(
        CaseRelation.objects.filter(to_case=survivor).values_list("from_case", flat=True)
    )
    position = (
        max(
            CaseRelation.objects.filter(from_case=survivor).values_list("position", flat=True),
            default=-1,
        )
        + 1
    )
    for relation in CaseRelation.objects.filter(from_case=absorbed).order_by("position"):
        if relation.to_case_id in outgoing | {survivor.pk}:
            relation.delete()
            continue
        relation.from_case, relation.position = survivor, position
        relation.save(update_fields=["from_case", "position"])
        outgoing.add(relation.to_case_id)
        position += 1
    for relation in CaseRelation.objects.filter(to_case=absorbed):
        if relation.from_case_id in incoming | {survivor.pk}:
            relation.delete()
            continue
        relation.to_case = survivor
        relation.save(update_fields=["to_case"])
        incoming.add(relation.from_case_id)
    Case.objects.filter(recurrence_of=absorbed).exclude(pk=survivor.pk).update(
        recurrence_of=survivor
    )
    if survivor.recurrence_of_id == absorbed.pk:
        survivor.recurrence_of = None
        survivor.save(update_fields=["recurrence_of"])
