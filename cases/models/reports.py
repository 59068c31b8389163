"""Problems readers report on a published case: the corrections queue.

A report hangs on the case itself (`case.root`), never on a pending revision's working
copy, which is deleted when it is approved: reports, and their resolutions, stay in the
case's timeline. Who sent one is not kept (no address); an email, if they gave one, is
shown to the case's editors only.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from cases.rules import MAX_URL_LENGTH
from cases.validators import HttpUrlValidator

from .catalogue import Case

MAX_TEXT_LENGTH = 5_000  # what is wrong, and an editor's note on it


class ProblemReportQuerySet(models.QuerySet):
    def open(self):
        return self.filter(status=ProblemReport.Status.OPEN)


class ProblemReport(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("problem report", "open")
        RESOLVED = "resolved", pgettext_lazy("problem report", "resolved")
        DISMISSED = "dismissed", pgettext_lazy("problem report", "dismissed")

    case = models.ForeignKey(
        Case,
        on_delete=models.CASCADE,
        related_name="problem_reports",
        limit_choices_to={"draft_of__isnull": True},
        verbose_name=_("case"),
    )
    text = models.TextField(_("what is wrong"))
    source_url = models.CharField(
        _("source"), max_length=MAX_URL_LENGTH, blank=True, validators=[HttpUrlValidator()]
    )
    email = models.EmailField(_("email"), blank=True)
    language = models.CharField(_("language"), max_length=5, choices=settings.LANGUAGES)
    sent_at = models.DateTimeField(_("sent"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    resolution_note = models.TextField(_("note"), blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )
    resolved_at = models.DateTimeField(_("handled"), null=True, blank=True)

    objects = ProblemReportQuerySet.as_manager()

    class Meta:
        ordering = ["sent_at", "pk"]
        indexes = [
            # The open reports of a case (its admin page) and the queue, open ones first.
            models.Index(
                fields=["case"], condition=Q(status="open"), name="problem_report_open_case"
            ),
            models.Index(fields=["status", "sent_at"], name="problem_report_queue"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="problem_report_has_text"),
            models.CheckConstraint(
                condition=Q(status__in=["open", "resolved", "dismissed"]),
                name="problem_report_known_status",
            ),
            # Open: nobody handled it yet. Handled: when, and a note saying what was done.
            # (Whoever handled it may have gone: SET_NULL.)
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True, resolved_by__isnull=True)
                & Q(resolution_note="")
                | (~Q(status="open") & Q(resolved_at__isnull=False) & ~Q(resolution_note="")),
                name="problem_report_handled_with_a_note",
            ),
        ]
        verbose_name = _("reported problem")
        verbose_name_plural = _("reported problems")

    def __str__(self):
        return f"{self.case_id}: {self.text[:60]}"

    @property
    def is_open(self):
        return self.status == self.Status.OPEN
