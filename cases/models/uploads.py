"""An exchange file uploaded in the admin, between its dry run and its confirmation."""

import datetime
import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .catalogue import Case

# How long an upload waits for its confirmation.
PENDING_IMPORT_LIFETIME = datetime.timedelta(hours=1)
# Uploads that wait for one user at once: a newer one forgets the oldest, so that one person's
# uploads never hold more than this many times the upload limit in the database.
PENDING_IMPORTS_PER_USER = 3


def sha256_of(content):
    return hashlib.sha256(content).hexdigest()


class PendingImportQuerySet(models.QuerySet):
    def keep(self, *, user, file_name, content, status, force, dry_run_counts):
        """Keep an upload whose dry run went well, under a new random token. Forget every
        upload that expired (none is kept past its hour for longer than until anyone's next
        upload), and this user's oldest beyond PENDING_IMPORTS_PER_USER."""
        now = timezone.now()
        self.filter(expires_at__lte=now).delete()
        newest = self.filter(user=user).order_by("-uploaded_at", "-pk")
        older = newest.values_list("pk", flat=True)[PENDING_IMPORTS_PER_USER - 1 :]
        self.filter(pk__in=list(older)).delete()
        return self.create(
            token=secrets.token_urlsafe(32),
            user=user,
            file_name=file_name,
            content=content,
            sha256=sha256_of(content),
            status=status,
            force=force,
            dry_run_counts=dry_run_counts,
            uploaded_at=now,
            expires_at=now + PENDING_IMPORT_LIFETIME,
        )


class PendingImport(models.Model):
    """The file a reviewer's dry run read, kept until they confirm its import.

    In the database rather than on one app server's disk, so that the confirmation may
    reach any server behind the load balancer. It is at most the admin's upload limit
    (settings.CASE_IMPORT_MAX_UPLOAD_SIZE), deleted when it is imported and, once expired,
    by the next upload. `token` names it in the confirmation; it is bound to its uploader
    and to their session, which also holds `sha256` (cases/admin/exchange_views.py).
    """

    token = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    file_name = models.CharField(_("file"), max_length=255)
    content = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    # The dry run's options, which the import must use too.
    status = models.CharField(max_length=20, choices=Case.Status.choices)
    force = models.BooleanField(default=False)
    # What the dry run said it would do: {"created": 2, "updated": 1, ...}.
    dry_run_counts = models.JSONField(default=dict)
    uploaded_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    objects = PendingImportQuerySet.as_manager()

    class Meta:
        verbose_name = _("import waiting for confirmation")
        verbose_name_plural = _("imports waiting for confirmation")
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_at__gt=F("uploaded_at")),
                name="pending_import_expires_after_upload",
            ),
            models.CheckConstraint(
                condition=Q(status__in=Case.Status.values), name="pending_import_status"
            ),
            models.CheckConstraint(
                condition=Q(sha256__regex=r"^[0-9a-f]{64}\Z"), name="pending_import_sha256"
            ),
            models.CheckConstraint(
                # secrets.token_urlsafe: unguessable only when long enough.
                condition=Q(token__regex=r"^[A-Za-z0-9_-]{32,64}\Z"),
                name="pending_import_token",
            ),
        ]

    def __str__(self):
        return self.file_name

    @property
    def expired(self):
        return self.expires_at <= timezone.now()

    def intact(self, expected_sha256):
        """Whether the kept bytes are the ones the dry run read (the session's word)."""
        return self.sha256 == expected_sha256 == sha256_of(bytes(self.content))

    def claim(self):
        """Take the upload to import it: True for exactly one caller, however many confirm
        at once (one DELETE finds the row; the others find nothing)."""
        deleted, _by_model = type(self).objects.filter(pk=self.pk).delete()
        return bool(deleted)
