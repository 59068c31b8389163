"""Publications and withdrawals that a reviewer set for a later time."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .catalogue import Case


class ScheduledTransitionQuerySet(models.QuerySet):
    def active(self):
        return self.filter(state=ScheduledTransition.State.SCHEDULED)


class ScheduledTransition(models.Model):
    """A workflow step (approve, withdraw) that a task makes at `run_at`, as the reviewer
    who scheduled it, if the workflow would still allow it then.

    `edit_version` is the case's as it was scheduled: a case edited since is not published
    unseen. The row stays after it runs (done, failed with the reason, or cancelled).
    """

    class Action(models.TextChoices):
        APPROVE = "approve", _("publication")
        WITHDRAW = "withdraw", _("withdrawal")

    class State(models.TextChoices):
        SCHEDULED = "scheduled", _("scheduled")
        DONE = "done", _("done")
        CANCELLED = "cancelled", _("cancelled")
        FAILED = "failed", _("failed")

    # Kept when the case row goes (approving a pending revision deletes it): `public_id`
    # still says whose schedule it was.
    case = models.ForeignKey(
        Case, on_delete=models.SET_NULL, null=True, related_name="schedules", verbose_name=_("case")
    )
    public_id = models.CharField(_("case id"), max_length=20)
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    run_at = models.DateTimeField(_("when"))
    note = models.TextField(_("note"), blank=True)
    scheduled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("scheduled by"),
    )
    edit_version = models.PositiveIntegerField()
    confirm_stale_korean = models.BooleanField(default=False)
    state = models.CharField(
        _("state"), max_length=10, choices=State.choices, default=State.SCHEDULED
    )
    outcome = models.TextField(_("outcome"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ScheduledTransitionQuerySet.as_manager()

    class Meta:
        ordering = ["run_at", "pk"]
        verbose_name = _("scheduled step")
        verbose_name_plural = _("scheduled steps")
        constraints = [
            # Two pending schedules for one case would contradict each other.
            models.UniqueConstraint(
                fields=["case"],
                condition=models.Q(state="scheduled"),
                name="schedule_one_active_per_case",
            ),
            models.CheckConstraint(
                condition=models.Q(action__in=["approve", "withdraw"]),
                name="schedule_known_action",
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=["scheduled", "done", "cancelled", "failed"]),
                name="schedule_known_state",
            ),
            # As for withdrawing now: readers are told why a case went away.
            models.CheckConstraint(
                condition=~models.Q(action="withdraw", note=""),
                name="schedule_withdrawal_has_note",
            ),
            models.CheckConstraint(
                condition=models.Q(state="scheduled", finished_at__isnull=True)
                | (~models.Q(state="scheduled") & models.Q(finished_at__isnull=False)),
                name="schedule_finished_when_not_pending",
            ),
        ]
        indexes = [models.Index(fields=["state", "run_at"], name="schedule_state_run_at")]

    def __str__(self):
        return f"{self.public_id}: {self.action} at {self.run_at:%Y-%m-%d %H:%M}"
