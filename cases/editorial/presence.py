"""Who else has a case's admin page open ("Also open: Mina, 2 minutes ago").

Each opening of a case's change form, and a heartbeat from the open page every minute or
so while its tab is visible, upserts one row a person and case (CasePresence). A person is
listed while their last sign is younger than `CASE_PRESENCE_WINDOW` (seconds, default 300),
never to themselves. The rows are in the database, not the cache: every process of every
app server must see the others' signs.
"""

import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cases.models import CasePresence

from .rights import WorkflowError


def window():
    return datetime.timedelta(seconds=getattr(settings, "CASE_PRESENCE_WINDOW", 300))


def heartbeat_seconds():
    """How often an open page says it is still open (`CASE_PRESENCE_HEARTBEAT`, seconds):
    well within the window, so that one late beat does not drop anybody."""
    return getattr(settings, "CASE_PRESENCE_HEARTBEAT", 60)


def presence_record(*, case, user):
    """The user has the case's page open now: one statement, an INSERT that updates the
    row already there (ON CONFLICT), so two tabs of one person never race to a duplicate."""
    if not user.has_perm("cases.view_case"):
        raise WorkflowError(_("You do not have the right to view cases."))
    try:
        with transaction.atomic():
            CasePresence.objects.bulk_create(
                [CasePresence(case_id=case.pk, user_id=user.pk, last_seen=timezone.now())],
                update_conflicts=True,
                unique_fields=["case", "user"],
                update_fields=["last_seen"],
            )
    except IntegrityError:
        # The case went meanwhile (an approved revision's working copy is deleted while
        # its page is still open): there is nobody to tell.
        pass


def present_others(*, case, user):
    """The others who had the case's page open within the window, the latest first, each
    with their user: one query."""
    return list(
        CasePresence.objects.filter(case=case.pk, last_seen__gte=timezone.now() - window())
        .exclude(user=user.pk)
        .select_related("user")
        .order_by("-last_seen")
    )
