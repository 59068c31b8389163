"""The editorial record: workflow transitions, saved versions, merged terms and organisations."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .catalogue import Case, Organisation, Term


class CaseTransition(models.Model):
    """One step of a case through the review workflow: who, when, from, to, why."""

    # Kept when the case is deleted: `public_id` still says whose step it was.
    case = models.ForeignKey(Case, on_delete=models.SET_NULL, null=True, related_name="transitions")
    public_id = models.CharField(max_length=20, db_index=True)
    action = models.CharField(_("action"), max_length=40)  # e.g. incidentlib.case.approved
    # Blank when the case had no status before: created by an import or a restore.
    from_status = models.CharField(
        _("from"), max_length=20, choices=Case.Status.choices, blank=True
    )
    to_status = models.CharField(_("to"), max_length=20, choices=Case.Status.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    note = models.TextField(_("note"), blank=True)
    pending_revision = models.BooleanField(_("on a pending revision"), default=False)
    at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("workflow transition")
        verbose_name_plural = _("workflow transitions")

    def __str__(self):
        return f"{self.public_id}: {self.from_status} → {self.to_status}"


class CaseVersion(models.Model):
    """Every saved state of a case, in the exchange format, to compare and restore.

    Kept when the case is deleted: `public_id` still says whose version it was.
    """

    class Event(models.TextChoices):
        # Saves that write a case's content: their authors may not approve it.
        CREATED = "created", _("created")
        SAVED = "saved", _("saved")
        RESTORED = "restored", _("restored from an older version")
        # States recorded for the history, written by nobody in particular.
        BEFORE_FIRST_EDIT = "before_first_edit", _("as it was before its first edit")
        REVISION_STARTED = "revision_started", _("pending revision started")
        APPROVED = "approved", _("approved and published")

    AUTHORING = (Event.CREATED, Event.SAVED, Event.RESTORED)

    case = models.ForeignKey(Case, on_delete=models.SET_NULL, null=True, related_name="versions")
    public_id = models.CharField(max_length=20, db_index=True)
    number = models.PositiveIntegerField()
    data = models.JSONField()
    status = models.CharField(max_length=20, choices=Case.Status.choices)
    pending_revision = models.BooleanField(default=False)
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    saved_at = models.DateTimeField(auto_now_add=True)
    reason = models.CharField(max_length=200, blank=True)
    # Blank for versions kept before events were recorded: counted as authored.
    event = models.CharField(max_length=20, choices=Event.choices, blank=True)

    class Meta:
        ordering = ["public_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["public_id", "number"], name="version_unique_number"),
        ]
        verbose_name = _("version")
        verbose_name_plural = _("versions")

    def __str__(self):
        return f"{self.public_id} #{self.number}"


class TermRedirect(models.Model):
    """The slug of a term merged into another: old links lead to the survivor."""

    vocabulary = models.CharField(max_length=20)
    old_slug = models.SlugField(max_length=100)
    term = models.ForeignKey(Term, on_delete=models.CASCADE, related_name="redirects")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["vocabulary", "old_slug"], name="redirect_unique"),
        ]

    def __str__(self):
        return f"{self.vocabulary}/{self.old_slug} → {self.term.slug}"


class OrganisationRedirect(models.Model):
    """The slug of an organisation merged into another: its old page and list filter lead
    to the survivor, and an import that names it means the survivor (exchange.organisations).
    Kept as the record of the merge: who merged it is in the admin's log."""

    old_slug = models.SlugField(max_length=200, unique=True)
    # The name it had: an import may still spell it so.
    old_name = models.CharField(max_length=200, blank=True)
    organisation = models.ForeignKey(
        Organisation, on_delete=models.CASCADE, related_name="redirects"
    )
    merged_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.old_slug} → {self.organisation.slug}"


class CaseMerge(models.Model):
    """A duplicate case absorbed into another (cases.editorial.combining). The absorbed case
    stays, withdrawn, with its history; its id answers 301 with the survivor's page."""

    absorbed = models.OneToOneField(
        Case, on_delete=models.CASCADE, related_name="merged_into", verbose_name=_("absorbed")
    )
    # Kept apart from the case: the id the old links name, what the change feed says merged.
    absorbed_public_id = models.CharField(max_length=20, unique=True)
    survivor = models.ForeignKey(
        Case, on_delete=models.CASCADE, related_name="absorbed_merges", verbose_name=_("survivor")
    )
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    merged_at = models.DateTimeField(_("merged at"), auto_now_add=True)
    note = models.TextField(_("note"), blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(absorbed=models.F("survivor")), name="merge_not_into_itself"
            ),
        ]
        verbose_name = _("merged duplicate")
        verbose_name_plural = _("merged duplicates")

    def __str__(self):
        return f"{self.absorbed_public_id} → {self.survivor_id}"
