"""Who is told what by email, and the emails themselves.

- A case submitted for review: every reviewer (`cases.review_case`: active staff with an
  email address) but the one who submitted it.
- Changes requested, or the case approved and published: its author (`created_by`) and
  whoever submitted it, if someone else; the reviewer's note is in the email.
- A scheduled publication or withdrawal that could not be made: whoever scheduled it, with
  the reason (cases.editorial.scheduling).
- A problem a reader reported on a published case: the case's editors (who created, last
  edited or submitted it or its pending revision, or wrote it since its last approval), or
  the reviewers when none of them can be reached (cases.contributions.reports). The
  reader's email address stays in the admin.

Nobody is told of their own step, and nobody who turned emails off (EditorPreference).
Each email is in its recipient's language, plain text, and links to the case's admin page
under SITE_URL.

The workflow calls `transition_recorded` after it records a step. The emails are built and
sent by a worker (cases.tasks), once the step is committed: a step rolled back sends
nothing, and no request waits for a mail server. Each recipient's email is a task of its
own, retried on its own (cases.tasks.deliver_mail).
"""

from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases import tasks
from cases.models import (
    Case,
    CaseTransition,
    EditorPreference,
    ProblemReport,
    ScheduledTransition,
)

from . import comments
from .audit import PREFIX
from .rights import WorkflowError, display_name

# `with_perm` must be told which backend answers when several are configured: axes comes
# first and decides no permission; this one reads groups, users' own and superusers.
PERMISSION_BACKEND = "django.contrib.auth.backends.ModelBackend"

# What each step tells: (subject, first line), both with %(id)s, %(title)s, %(actor)s.
NOTICES = {
    PREFIX + "submitted": (
        gettext_lazy("%(id)s waits for your review: %(title)s"),
        gettext_lazy("%(actor)s submitted %(id)s for review."),
    ),
    PREFIX + "changes_requested": (
        gettext_lazy("Changes requested on %(id)s: %(title)s"),
        gettext_lazy("%(actor)s requested changes to %(id)s."),
    ),
    PREFIX + "approved": (
        gettext_lazy("%(id)s is published: %(title)s"),
        gettext_lazy("%(actor)s approved %(id)s; it is published."),
    ),
}


def transition_recorded(transition):
    """After the workflow recorded a step: its emails, if it has any, once it commits."""
    if transition.action in NOTICES:
        # Robust: the step is made by then, and an email that could not be queued is no
        # reason to show its maker an error page (it is logged).
        enqueue = partial(tasks.send_transition_mail.enqueue, transition.pk)
        transaction.on_commit(enqueue, robust=True)


def problem_reported(report):
    """After a reader's report is stored: its email to the case's editors, once it commits."""
    enqueue = partial(tasks.send_problem_report_mail.enqueue, report.pk)
    transaction.on_commit(enqueue, robust=True)


# --- who --------------------------------------------------------------------------------


def reachable(users):
    """Those of `users` an email can reach and who want one."""
    return (
        users.filter(is_active=True)
        .exclude(email="")
        .exclude(editor_preference__email_notifications=False)
        .select_related("editor_preference")
        .order_by("pk")
    )


def reviewers():
    users = get_user_model().objects.with_perm(
        "cases.review_case", include_superusers=True, backend=PERMISSION_BACKEND
    )
    return users.filter(is_staff=True)


def recipients(transition, case=None):
    """Who is told of this step of this case (the case in review: a pending revision's
    working copy, while it exists; a submission's reviewers need none)."""
    User = get_user_model()
    if transition.action == PREFIX + "submitted":
        users = reviewers()
    else:
        users = User.objects.filter(pk__in=[case.created_by_id, case.submitted_by_id])
    if transition.user_id:
        users = users.exclude(pk=transition.user_id)
    return list(reachable(users))


def case_editors(root):
    """The case's editors (cases.editorial.comments), who still may edit cases."""
    editors = get_user_model().objects.with_perm(
        "cases.change_case", include_superusers=True, backend=PERMISSION_BACKEND
    )
    return editors.filter(pk__in=comments.editor_ids(root))


def case_in_review(transition):
    """The case a step was about: a pending revision's working copy while it exists (its
    step is recorded under the published case), else the case; None if it was deleted.
    One query: the two rows at once."""
    if transition.case_id is None:
        return None
    if not transition.pending_revision:
        return Case.objects.filter(pk=transition.case_id).first()
    found = Case.objects.filter(Q(pk=transition.case_id) | Q(draft_of_id=transition.case_id))
    found = sorted(found, key=lambda case: case.draft_of_id is None)  # the copy first
    return found[0] if found else None


# --- what -------------------------------------------------------------------------------


def admin_link(case):
    path = reverse("admin:cases_case_change", args=[case.pk]) if case else reverse("admin:index")
    return settings.SITE_URL + path


def compose(recipient, subject, context):
    """One email, as the task that sends it takes it (JSON): call it in the recipient's
    language."""
    body = render_to_string(
        "cases/emails/notice.txt",
        {
            **context,
            "recipient": display_name(recipient),
            "preferences_link": settings.SITE_URL + reverse("admin:cases_preferences"),
        },
    )
    subject = _("[Incident Library] %(subject)s") % {"subject": subject % context}
    return {"to": recipient.email, "subject": " ".join(subject.split()), "body": body}


def in_their_language(recipient):
    return translation.override(EditorPreference.of(recipient).language)


def transition_mail(transition_id):
    """The emails a recorded step sends, one a recipient; none if it sends none or its
    case is gone."""
    transition = CaseTransition.objects.select_related("user").get(pk=transition_id)
    if transition.action not in NOTICES or transition.case_id is None:
        return []
    # A case's row is some sixty columns: read once, and for a submission (its reviewers
    # are told) only if somebody is.
    case = None
    if transition.action != PREFIX + "submitted":
        case = case_in_review(transition)
        if case is None:
            return []
    people = recipients(transition, case)
    if not people:
        return []
    case = case or case_in_review(transition)
    if case is None:
        return []
    subject, headline = NOTICES[transition.action]
    messages = []
    for recipient in people:
        with in_their_language(recipient):
            names = {
                "id": case.public_id,
                "title": case.title,  # in the language now active, else English
                "actor": display_name(transition.user) if transition.user else _("someone"),
            }
            context = {
                **names,
                "headline": headline % names,
                "status": Case.Status(transition.to_status).label,
                "note_label": _("Note")
                if transition.action == PREFIX + "submitted"
                else _("The reviewer's note"),
                "note": transition.note,
                "link": admin_link(case),
            }
            messages.append(compose(recipient, subject, context))
    return messages


def schedule_failed_mail(schedule_id):
    """The email that tells whoever scheduled a step that it was not made, and why."""
    schedule = ScheduledTransition.objects.select_related("case", "scheduled_by").get(
        pk=schedule_id
    )
    User = get_user_model()
    if schedule.scheduled_by_id is None:
        return []
    scheduler = reachable(User.objects.filter(pk=schedule.scheduled_by_id)).first()
    if scheduler is None:
        return []
    case = schedule.case
    with in_their_language(scheduler):
        names = {
            "id": schedule.public_id,
            "title": case.title if case else schedule.public_id,
            "action": schedule.get_action_display(),
            "when": timezone.localtime(schedule.run_at).strftime("%Y-%m-%d %H:%M %Z"),
        }
        context = {
            **names,
            "headline": _("The %(action)s of %(id)s that you scheduled for %(when)s was not made.")
            % names,
            "status": case.get_status_display() if case else "",
            "note_label": _("Why"),
            "note": schedule.outcome,
            "link": admin_link(case),
        }
        subject = _("Scheduled %(action)s of %(id)s failed: %(title)s")
        return [compose(scheduler, subject, context)]


def problem_report_mail(report_id):
    """The emails that tell a case's editors of a reader's report (its reviewers, when no
    editor can be reached); none if the report was handled or deleted meanwhile."""
    report = ProblemReport.objects.select_related("case").filter(pk=report_id).first()
    if report is None or not report.is_open:
        return []
    case = report.case
    people = list(reachable(case_editors(case))) or list(reachable(reviewers()))
    messages = []
    for recipient in people:
        with in_their_language(recipient):
            names = {"id": case.public_id, "title": case.title}
            note = report.text
            if report.source_url:
                note += "\n\n" + _("Source: %(url)s") % {"url": report.source_url}
            context = {
                **names,
                "headline": _("A reader reported a problem with %(id)s.") % names,
                "status": case.get_status_display(),
                "note_label": _("What is wrong"),
                "note": note,
                "link": admin_link(case) + "#problem-reports",
            }
            messages.append(compose(recipient, _("Problem reported on %(id)s: %(title)s"), context))
    return messages


# --- the user's choice ------------------------------------------------------------------


def preferences_save(*, user, email_notifications, language):
    """Set the user's own notification preferences."""
    if language not in dict(settings.LANGUAGES):
        raise WorkflowError(_("Choose English or Korean."))
    with transaction.atomic():
        preference, _created = EditorPreference.objects.update_or_create(
            user=user,
            defaults={"email_notifications": bool(email_notifications), "language": language},
        )
    return preference
