"""Problems readers report on a published case, and their editors' answer to each.

- `report_file`: a reader says what is wrong with a published case (and, if they like,
  where they read otherwise, and an email to answer them at). It is attached to the case
  itself, even while a pending revision of it is being edited, and the case's editors are
  told (cases.editorial.notifications).
- `report_resolve`, `report_dismiss`: one of the case's editors or a reviewer says what was
  done (fixed, or nothing to fix), in a note. A report is handled once.

Each is one transaction, checks the state it changes under a lock, and raises WorkflowError
saying why it refused. The report's row is its record: the case's timeline in the admin
shows when it was sent and when, by whom and how it was handled (`timeline_entries`).
"""

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cases.editorial import notifications
from cases.editorial.comments import TimelineEntry, is_editor
from cases.editorial.rights import WorkflowError, display_name, is_reviewer
from cases.models import Case, ProblemReport
from cases.models.reports import MAX_TEXT_LENGTH
from cases.rules import number, url_problem

Status = ProblemReport.Status
MAX_EMAIL_LENGTH = 254  # RFC 5321's longest address


# --- what a report may hold: the form asks the same ----------------------------------------


def text_problem(text, *, empty):
    """Why a report's text (or an editor's note) may not be stored, or None."""
    if not text:
        return empty
    if len(text) > MAX_TEXT_LENGTH:
        return _("Please keep it to %(max)s characters; this is %(count)s.") % {
            "max": number(MAX_TEXT_LENGTH),
            "count": number(len(text)),
        }
    if "\x00" in text:
        return _("The text must not contain a NUL character.")
    return None


def source_problem(url):
    if url and (problem := url_problem(url)):
        return _("The source: %(problem)s.") % {"problem": problem}
    return None


def email_problem(email):
    if not email:
        return None
    if len(email) > MAX_EMAIL_LENGTH:
        return _("An email address is at most %(max)s characters long.") % {"max": MAX_EMAIL_LENGTH}
    try:
        validate_email(email)
    except ValidationError:
        return _("Enter a valid email address, or leave it empty.")
    return None


def _checked(problem):
    if problem:
        raise WorkflowError(problem)


# --- who may ------------------------------------------------------------------------------


def may_handle(user, root):
    """Whether the user resolves or dismisses the case's reports: its editors, and
    reviewers."""
    return user.is_authenticated and (is_reviewer(user) or is_editor(user, root))


# --- the writes ---------------------------------------------------------------------------


def report_file(*, case, text, source_url="", email="", language):
    """A reader's report of a problem with a published case, attached to the case itself."""
    text, source_url, email = (text or "").strip(), (source_url or "").strip(), email or ""
    email = email.strip()
    _checked(text_problem(text, empty=_("Say what is wrong first.")))
    _checked(source_problem(source_url))
    _checked(email_problem(email))
    with transaction.atomic():
        # Locked as the workflow locks it: no report lands on a case being withdrawn.
        root = Case.objects.locked().get(pk=case.root.pk)
        if root.status != Case.Status.PUBLISHED:
            raise WorkflowError(_("Problems are reported on published cases only."))
        report = ProblemReport.objects.create(
            case=root,
            text=text,
            source_url=source_url,
            email=email,
            language=language,
            sent_at=timezone.now(),
        )
        notifications.problem_reported(report)
    return report


def _handle(report, user, note, status):
    note = (note or "").strip()
    _checked(text_problem(note, empty=_("Say what was done in a note.")))
    with transaction.atomic():
        report = (
            ProblemReport.objects.select_for_update(of=("self",))
            .select_related("case", "resolved_by")
            .get(pk=report.pk)
        )
        if not may_handle(user, report.case):
            raise WorkflowError(_("Only the case's editors and reviewers handle its reports."))
        if not report.is_open:
            already = {
                Status.RESOLVED: _("This report was already resolved by %(name)s on %(date)s."),
                Status.DISMISSED: _("This report was already dismissed by %(name)s on %(date)s."),
            }
            raise WorkflowError(
                already[report.status]
                % {
                    "name": display_name(report.resolved_by)
                    if report.resolved_by
                    else _("someone"),
                    "date": timezone.localtime(report.resolved_at).strftime("%Y-%m-%d %H:%M"),
                }
            )
        report.status, report.resolution_note = status, note
        report.resolved_by, report.resolved_at = user, timezone.now()
        report.save(update_fields=["status", "resolution_note", "resolved_by", "resolved_at"])
        return report


def report_resolve(*, report, user, note):
    """The problem is mended (or will be, in a pending revision): the note says how."""
    return _handle(report, user, note, Status.RESOLVED)


def report_dismiss(*, report, user, note):
    """Nothing to mend: the note says why."""
    return _handle(report, user, note, Status.DISMISSED)


# --- reading ------------------------------------------------------------------------------


def reports_of(case):
    """Every report of the case (of its case, for a working copy), oldest first, with who
    handled it: one query."""
    return list(
        ProblemReport.objects.filter(case=case.draft_of_id or case.pk)
        .select_related("resolved_by")
        .order_by("sent_at", "pk")
    )


def timeline_entries(reports):
    """The case timeline's lines of its reports: each sent, and each handled."""
    entries = [TimelineEntry(report.sent_at, "report", report) for report in reports]
    entries += [
        TimelineEntry(report.resolved_at, "report_handled", report)
        for report in reports
        if not report.is_open
    ]
    return entries
