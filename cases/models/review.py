"""The review desk: comments on a case's fields, who is reviewing it, who has it open.

Comments and claims hang on the case itself (`case.root`), never on a pending revision's
working copy: approving a revision deletes the copy (editorial.revisions.publish_revision),
and a case's resolved comments and past claims stay in its history.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .catalogue import Case


class CaseCommentQuerySet(models.QuerySet):
    def open(self):
        return self.filter(resolved_at__isnull=True)

    def resolved(self):
        return self.filter(resolved_at__isnull=False)


class CaseComment(models.Model):
    """A reviewer's comment on one field of a case, as Wagtail's `Comment`: it names the
    field by its path in the exchange format (`trigger.ko`, `remediation[2].ko`), has
    replies, and is resolved rather than deleted."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="comments")
    field_path = models.CharField(_("field"), max_length=100)
    text = models.TextField(_("comment"))
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(_("written"), default=timezone.now)
    # Made while the case's pending revision was what was being reviewed.
    on_pending_revision = models.BooleanField(_("on a pending revision"), default=False)
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )

    objects = CaseCommentQuerySet.as_manager()

    class Meta:
        ordering = ["created", "pk"]
        indexes = [
            # The open comments of a case (the change form, the list's count, the dashboard).
            models.Index(
                fields=["case"], condition=Q(resolved_at__isnull=True), name="comment_open_case"
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(field_path=""), name="comment_has_field"),
            models.CheckConstraint(condition=~Q(text=""), name="comment_has_text"),
            # Whoever resolved it may have gone (SET_NULL); nobody resolves an open one.
            models.CheckConstraint(
                condition=Q(resolved_at__isnull=False) | Q(resolved_by__isnull=True),
                name="comment_resolver_only_when_resolved",
            ),
        ]
        verbose_name = _("review comment")
        verbose_name_plural = _("review comments")

    def __str__(self):
        return f"{self.field_path}: {self.text[:60]}"

    @property
    def is_resolved(self):
        return self.resolved_at is not None


class CommentReply(models.Model):
    """An answer in a comment's thread.

    A model of its own rather than a comment with a parent: a reply names no field and is
    never resolved on its own, so every count and list of comments would otherwise have to
    leave replies out, and nothing in the database would stop a reply to a reply.
    """

    comment = models.ForeignKey(CaseComment, on_delete=models.CASCADE, related_name="replies")
    text = models.TextField(_("reply"))
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(_("written"), default=timezone.now)

    class Meta:
        ordering = ["created", "pk"]
        constraints = [models.CheckConstraint(condition=~Q(text=""), name="reply_has_text")]
        verbose_name = _("reply")
        verbose_name_plural = _("replies")

    def __str__(self):
        return self.text[:60]


class ClaimEnd(models.TextChoices):
    RELEASED = "released", _("released")
    TAKEN_OVER = "taken_over", _("taken over by another reviewer")
    REVIEW_ENDED = "review_ended", _("the case left review")


class ReviewClaim(models.Model):
    """A reviewer says "I am reviewing this one", so two do not review the same case.

    At most one claim of a case is active (`ended_at` empty): the database holds that rule,
    as Wagtail's conditional constraint holds one active review of a page. Ended claims stay,
    saying who reviewed when.
    """

    End = ClaimEnd

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="review_claims")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    claimed_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    end = models.CharField(max_length=20, choices=ClaimEnd.choices, blank=True)

    class Meta:
        ordering = ["claimed_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["case"],
                condition=Q(ended_at__isnull=True),
                name="claim_one_active_per_case",
                violation_error_message=_("Someone else is already reviewing this case."),
            ),
            models.CheckConstraint(
                condition=Q(ended_at__isnull=True, end="")
                | Q(ended_at__isnull=False, end__in=ClaimEnd.values),
                name="claim_ended_with_a_reason",
            ),
        ]
        verbose_name = _("review claim")
        verbose_name_plural = _("review claims")

    def __str__(self):
        return f"{self.case_id} {self.reviewer_id} {self.claimed_at:%Y-%m-%d %H:%M}"


class CasePresence(models.Model):
    """When a user last had a case's admin page open: one row a person and page, upserted on
    every opening and every heartbeat of the open page. In the database rather than the
    cache, since each app server's process has a cache of its own."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_seen = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "user"], name="presence_one_row_a_user"),
        ]
        verbose_name = _("open case page")
        verbose_name_plural = _("open case pages")

    def __str__(self):
        return f"{self.case_id} {self.user_id} {self.last_seen:%H:%M:%S}"
