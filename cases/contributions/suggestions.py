"""Suggested cases: a reader's suggestion is stored, then triaged once by an editor.

    new ──accept──▶ accepted (a draft case, with the suggested address among its sources)
     ├───reject───▶ rejected (a reason is required)
     └─duplicate──▶ duplicate (of an existing case)

Each step runs in one transaction, locks the suggestion, checks that it is still new and
that the user may triage, and records who, when and why. Accepting creates the draft the
way an editor's new case is created (cases.editorial.drafts.case_save): validated by the
exchange format's validator, written by its writer, its first version recorded, here with
the words "created from suggestion #n".
"""

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from cases.editorial.drafts import CaseInvalid, case_save
from cases.editorial.ids import propose_case_id
from cases.editorial.rights import WorkflowError, display_name
from cases.exchange.spelling import Problem
from cases.models import Case, CaseVersion, Organisation, Suggestion

from .suggestion_matches import address_key

Status = Suggestion.Status
TRIAGE_PERMISSION = "cases.change_suggestion"


def may_triage(user):
    return user.has_perm(TRIAGE_PERMISSION)


def suggestion_create(*, source_url, language, organisation="", date=None, note="", email=""):
    """Store a reader's suggestion (already checked by the public form; checked again by
    the model's own rules, so no other caller stores a bad one)."""
    suggestion = Suggestion(
        source_url=source_url.strip(),
        source_key=address_key(source_url),
        organisation=organisation.strip(),
        date=date,
        note=note.strip(),
        email=email.strip(),
        language=language,
    )
    suggestion.full_clean()
    suggestion.save()
    return suggestion


def suggested_organisation(suggestion):
    """The organisation the reader seems to name: one whose name is theirs but for letter
    case, else one whose slug their name makes; None if none."""
    name = suggestion.organisation.strip()
    if not name:
        return None
    found = Organisation.objects.filter(name__iexact=name).order_by("pk").first()
    if found is None and (slug := slugify(name)):
        found = Organisation.objects.filter(slug=slug).first()
    return found


def handled_already(suggestion):
    """Why a handled suggestion cannot be handled again, in the triager's words."""
    who = display_name(suggestion.handled_by) if suggestion.handled_by else _("someone")
    return _(
        "This suggestion was already handled (%(status)s by %(who)s on %(when)s); "
        "it cannot be handled again."
    ) % {
        "status": suggestion.get_status_display().lower(),
        "who": who,
        "when": timezone.localtime(suggestion.handled_at).strftime("%Y-%m-%d %H:%M"),
    }


def take_new(suggestion, user):
    """Lock the suggestion for this transaction; refuse if `user` may not triage or it is
    no longer new."""
    if not may_triage(user):
        raise WorkflowError(_("You do not have the right to triage suggested cases."))
    locked = Suggestion.objects.select_for_update().get(pk=suggestion.pk)
    if locked.status != Status.NEW:
        raise WorkflowError(handled_already(locked))
    return locked


def handled(suggestion, user, status, reason=""):
    suggestion.status, suggestion.reason = status, reason.strip()
    suggestion.handled_by, suggestion.handled_at = user, timezone.now()
    suggestion.save()
    return suggestion


def organisation_of_draft(org, new_name, new_slug):
    """(name, slug) for the draft: the chosen organisation's, or a new one's (the validator
    derives the slug of a new name if none is given). A new name may not be one that
    exists: ensure_organisations would quietly take the existing one for it."""
    if org is not None:
        return org.name, org.slug
    new_name, new_slug = new_name.strip(), new_slug.strip()
    slug = new_slug or slugify(new_name)
    if new_name and (
        Organisation.objects.filter(name__iexact=new_name).exists()
        or (slug and Organisation.objects.filter(slug=slug).exists())
    ):
        raise CaseInvalid(
            [Problem("org", _("This organisation already exists: choose it from the list."))]
        )
    return new_name, new_slug or None


@transaction.atomic
def suggestion_accept(
    *, suggestion, user, date, org=None, new_org_name="", new_org_slug="", title_en="", title_ko=""
):
    """Accept the suggestion: create a draft of `user`'s with the suggested address as its
    source. `org` an Organisation, or None and `new_org_name` (and optionally its slug);
    `date` a date or its ISO text. CaseInvalid names each problem at its field."""
    suggestion = take_new(suggestion, user)
    name, slug = organisation_of_draft(org, new_org_name, new_org_slug)
    data = {
        "id": propose_case_id(),
        "org": name,
        "date": date.isoformat() if hasattr(date, "isoformat") else date,
        "title": {"en": title_en.strip(), "ko": title_ko.strip()},
        "sources": [{"url": suggestion.source_url}],
    }
    if slug:
        data["org_slug"] = slug
    draft = case_save(
        case=Case(),
        data=data,
        user=user,
        event=CaseVersion.Event.CREATED,
        reason=_("created from suggestion #%(n)s") % {"n": suggestion.pk},
    )
    suggestion.draft = draft
    return handled(suggestion, user, Status.ACCEPTED)


@transaction.atomic
def suggestion_reject(*, suggestion, user, reason):
    if not reason.strip():
        raise WorkflowError(_("Say why the suggestion is rejected."))
    suggestion = take_new(suggestion, user)
    return handled(suggestion, user, Status.REJECTED, reason)


@transaction.atomic
def suggestion_mark_duplicate(*, suggestion, user, case, reason=""):
    """The suggestion tells of `case`, a case the library has (not a pending revision's
    copy: its case)."""
    if case is None:
        raise WorkflowError(_("Name the case this suggestion duplicates."))
    suggestion = take_new(suggestion, user)
    suggestion.duplicate_of = case.root
    return handled(suggestion, user, Status.DUPLICATE, reason)
