"""What readers send us: a suggested case, waiting in the editors' triage queue.

The sender's address is never stored (the rate limit counts it in the cache alone), and
their email, if they gave one, is shown to the triagers only.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cases.rules import MAX_NAME_LENGTH, MAX_URL_LENGTH
from cases.validators import HttpUrlValidator

from .catalogue import Case

MAX_NOTE_LENGTH = 5_000


class SuggestionStatus(models.TextChoices):
    NEW = "new", _("New")
    ACCEPTED = "accepted", _("Accepted")
    REJECTED = "rejected", _("Rejected")
    DUPLICATE = "duplicate", _("Duplicate")


class Suggestion(models.Model):
    """A case a reader suggests we write: where it is told, and what they know of it."""

    Status = SuggestionStatus

    source_url = models.CharField(
        _("source address"), max_length=MAX_URL_LENGTH, validators=[HttpUrlValidator()]
    )
    # The address as duplicates are found by (cases.contributions.suggestion_matches).
    source_key = models.CharField(max_length=MAX_URL_LENGTH, editable=False, db_index=True)
    organisation = models.CharField(_("organisation"), max_length=MAX_NAME_LENGTH, blank=True)
    date = models.DateField(_("date"), null=True, blank=True)
    note = models.TextField(_("note"), max_length=MAX_NOTE_LENGTH, blank=True)
    email = models.EmailField(_("email"), blank=True)
    language = models.CharField(_("sent in"), max_length=10, choices=settings.LANGUAGES)
    sent_at = models.DateTimeField(_("sent"), default=timezone.now)

    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.NEW
    )
    reason = models.TextField(_("reason"), blank=True)
    duplicate_of = models.ForeignKey(
        Case,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        limit_choices_to={"draft_of__isnull": True},  # a case, not a pending revision's copy
        verbose_name=_("duplicate of"),
    )
    draft = models.ForeignKey(
        Case,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="suggestions",
        verbose_name=_("draft"),
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)

    class Meta:
        ordering = ["sent_at", "pk"]
        # The queue: the new ones, oldest first.
        indexes = [models.Index(fields=["status", "sent_at"], name="suggestion_queue")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=SuggestionStatus.values), name="suggestion_status_choice"
            ),
            models.CheckConstraint(
                condition=Q(status=SuggestionStatus.NEW) | Q(handled_at__isnull=False),
                name="suggestion_handled_has_date",
            ),
            models.CheckConstraint(
                condition=~Q(status=SuggestionStatus.REJECTED) | ~Q(reason=""),
                name="suggestion_rejected_has_reason",
            ),
        ]
        verbose_name = _("suggested case")
        verbose_name_plural = _("suggested cases")

    def __str__(self):
        return f"#{self.pk}: {self.source_url[:80]}"
