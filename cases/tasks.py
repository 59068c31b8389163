"""Background work, run by `manage.py db_worker` (django-tasks-db) beside the app servers.

- `send_transition_mail`: the emails of one recorded workflow step, one task a recipient.
- `deliver_mail`: one email to one recipient, retried on its own when the mail server is
  away, so that one refused address neither holds up nor repeats the others.
- `send_problem_report_mail`: the emails telling a case's editors of a reader's report.
- `run_scheduled_transition`: a publication or withdrawal a reviewer scheduled, at its
  time (or at once, if no worker ran then).

The editorial modules enqueue these (on commit); the functions they call are imported
when a task runs, since those modules import this one.
"""

import logging
import smtplib
from datetime import timedelta

from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.tasks import task
from django.utils import timezone

logger = logging.getLogger(__name__)

# How long a failed email waits before each retry: after the 1st attempt 1 minute, then
# 5, 15 and 60. The 5th attempt, about 81 minutes after the first, is the last: a mail
# server away for longer than that is an outage someone must look at (the error is logged,
# and the task result is kept as failed).
RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(minutes=60),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1

# A scheduled step before the email it causes.
SCHEDULE_PRIORITY = 10


def enqueue_mail(messages):
    """One delivery task for each email; all of them or, if enqueueing fails, none."""
    with transaction.atomic():
        for message in messages:
            deliver_mail.enqueue(message)
    return len(messages)


@task
def send_transition_mail(transition_id):
    from cases.editorial import notifications

    return enqueue_mail(notifications.transition_mail(transition_id))


@task
def send_schedule_failed_mail(schedule_id):
    from cases.editorial import notifications

    return enqueue_mail(notifications.schedule_failed_mail(schedule_id))


@task
def send_problem_report_mail(report_id):
    from cases.editorial import notifications

    return enqueue_mail(notifications.problem_report_mail(report_id))


def permanent(error):
    """Whether the server refused the email for good (a 5xx answer: no such mailbox,
    say), which no retry mends; a connection that failed or a 4xx answer may pass later."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _reply in error.recipients.values())
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code >= 500
    return False


@task
def deliver_mail(message, attempt=1):
    """Send one email; on a transient failure enqueue this again, later (RETRY_DELAYS)."""
    email = EmailMessage(subject=message["subject"], body=message["body"], to=[message["to"]])
    try:
        mailers.default.send_messages([email])
    except OSError as error:  # smtplib's errors, refused and timed-out connections
        if permanent(error) or attempt >= MAX_ATTEMPTS:
            logger.error(
                "Gave up on the email %r to %s after %d attempt(s): %s",
                message["subject"],
                message["to"],
                attempt,
                error,
            )
            raise
        run_after = timezone.now() + RETRY_DELAYS[attempt - 1]
        deliver_mail.using(run_after=run_after).enqueue(message, attempt + 1)
        logger.warning(
            "The email %r to %s failed (attempt %d: %s); trying again at %s",
            message["subject"],
            message["to"],
            attempt,
            error,
            run_after.isoformat(),
        )
        return {"sent": False, "retry_at": run_after.isoformat()}
    return {"sent": True, "to": message["to"]}


@task(priority=SCHEDULE_PRIORITY)
def run_scheduled_transition(schedule_id):
    from cases.editorial import scheduling

    return scheduling.schedule_run(schedule_id=schedule_id)


@task
def rebuild_open_data():
    """The bulk file and the change feed, brought up to the current public content, below
    the app servers' priority (as an import runs). A worker that leads its own session (as
    systemd or `setsid` start it) lowers the session too: under autogroup a niceness orders
    only the processes of one session, and at 0 the build's second of CPU took a core from
    the readers."""
    from cases import open_data
    from cases.exchange.priority import below_readers, session_below_readers

    with session_below_readers(), below_readers():
        built = open_data.build()
    return None if built is None else {"version": built.version, "cases": built.cases}
