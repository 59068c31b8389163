"""What each editor wants to be told, and in which language."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class EditorPreference(models.Model):
    """One person's choices about notifications. Someone without a row has the defaults:
    emails on, in English."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="editor_preference",
        verbose_name=_("user"),
    )
    email_notifications = models.BooleanField(
        _("email notifications"),
        default=True,
        db_default=True,
        help_text=_(
            "Emails when a case waits for your review, comes back with changes, is published "
            "or a publication you scheduled fails."
        ),
    )
    language = models.CharField(
        _("language of emails"),
        max_length=10,
        choices=settings.LANGUAGES,
        default="en",
        db_default="en",
    )

    class Meta:
        verbose_name = _("editor's preferences")
        verbose_name_plural = _("editors' preferences")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(language__in=[code for code, _name in settings.LANGUAGES]),
                name="preference_known_language",
            ),
        ]

    def __str__(self):
        return str(self.user)

    @classmethod
    def of(cls, user):
        """The user's preferences: their row, or the defaults (unsaved) if they have none."""
        try:
            return user.editor_preference
        except cls.DoesNotExist:
            return cls(user=user)
