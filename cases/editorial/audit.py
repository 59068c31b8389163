"""The record of every change of a case's status: who, when, from, to, why.

Actions are namespaced codes, `incidentlib.case.<what>`: submitted, approved,
changes_requested, withdrawn, reopened, revision_started (the review workflow); imported,
import_updated (an import that creates or changes cases), restored (a restored backup).
"""

import getpass
import socket

from django.utils import timezone

from cases.exchange.writing import insert_rows
from cases.models import CaseTransition

PREFIX = "incidentlib.case."


def log(case, action, from_status, to_status, user, note="", *, pending=None):
    """Record one step of one case (a pending revision's under its case)."""
    root = case.root
    return CaseTransition.objects.create(
        case=root,
        public_id=root.public_id,
        action=PREFIX + action,
        from_status=from_status,
        to_status=to_status,
        user=user,
        note=note,
        pending_revision=bool(case.draft_of_id) if pending is None else pending,
    )


def log_many(steps, action, *, user=None, note=""):
    """Record one step for each of many cases at once: `steps` holds (primary key, public id,
    from status, to status). One COPY on PostgreSQL: an import records thousands."""
    now = timezone.now()
    user_id = user.pk if user is not None else None
    insert_rows(
        CaseTransition,
        ["case_id", "public_id", "action", "from_status", "to_status", "user_id", "note"]
        + ["pending_revision", "at"],
        (
            (pk, public_id, PREFIX + action, old, new, user_id, note, False, now)
            for pk, public_id, old, new in steps
        ),
    )


def who_runs_this():
    """The operating system's account and host: who ran a command, when no user is named."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container, say)
        login = "unknown"
    return f"{login}@{socket.gethostname()}"
