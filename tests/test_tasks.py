"""Background tasks: email delivery retried when the mail server is away, each recipient on
their own, and one real SMTP server on loopback."""

import email
import email.policy
import logging
import smtplib
import socket
from datetime import timedelta

import pytest
from aiosmtpd.controller import Controller
from django.core.mail.backends.locmem import EmailBackend
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from cases import tasks
from cases.editorial import transitions as workflow
from cases.models import Case
from tests.factories import CaseFactory, UserFactory
from tests.worker import let_time_pass, run_worker, waiting_tasks

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def submitted(django_capture_on_commit_callbacks):
    """A case submitted by an editor; two reviewers with addresses wait to be told."""
    editor = UserFactory(username="eddie", role="editor", email="eddie@example.org")
    UserFactory(username="rita", role="reviewer", email="rita@example.org")
    UserFactory(username="ravi", role="reviewer", email="ravi@example.org")
    case = CaseFactory(status=Status.DRAFT, published_at=None, created_by=editor)
    with django_capture_on_commit_callbacks(execute=True):
        workflow.case_submit(case=case, user=editor)
    return case


def failing(monkeypatch, *, times, error, only_to=None):
    """The test mail backend fails `times` times (for one address, or any), then delivers."""
    deliver = EmailBackend.send_messages
    failures = []

    def send_messages(backend, messages):
        to = messages[0].to[0]
        if len(failures) < times and only_to in (None, to):
            failures.append(to)
            raise error
        return deliver(backend, messages)

    monkeypatch.setattr(EmailBackend, "send_messages", send_messages)
    return failures


def delays():
    """How far ahead each waiting task is due, in whole minutes."""
    now = timezone.now()
    return [round((task.run_after - now) / timedelta(minutes=1)) for task in waiting_tasks()]


def test_a_refused_connection_is_retried_later_and_the_email_sent_once(
    submitted, mailoutbox, monkeypatch
):
    failures = failing(
        monkeypatch,
        times=2,
        error=ConnectionRefusedError(111, "refused"),
        only_to="rita@example.org",
    )
    run_worker()
    # Ravi's email went; Rita's waits a minute, and only hers.
    assert [message.to for message in mailoutbox] == [["ravi@example.org"]]
    assert delays() == [1]
    run_worker()
    assert len(mailoutbox) == 1  # not yet due

    let_time_pass(timedelta(minutes=1))
    run_worker()
    assert delays() == [5]  # the second attempt failed too
    let_time_pass(timedelta(minutes=5))
    run_worker()
    assert failures == ["rita@example.org", "rita@example.org"]
    assert sorted(message.to[0] for message in mailoutbox) == [
        "ravi@example.org",
        "rita@example.org",
    ]
    assert not waiting_tasks().exists()
    assert not DBTaskResult.objects.failed().exists()


def test_delivery_gives_up_after_five_attempts_and_says_so(
    submitted, mailoutbox, monkeypatch, caplog
):
    failing(monkeypatch, times=100, error=smtplib.SMTPServerDisconnected("gone"))
    run_worker()
    schedule = []
    for _attempt in range(tasks.MAX_ATTEMPTS - 1):
        schedule.append(sorted(set(delays())))
        let_time_pass(tasks.RETRY_DELAYS[-1])
        run_worker()
    assert schedule == [[1], [5], [15], [60]]
    assert not waiting_tasks().exists()
    assert mailoutbox == []
    gave_up = DBTaskResult.objects.failed()
    assert gave_up.count() == 2  # one for each reviewer
    assert {result.exception_class_path for result in gave_up} == {"smtplib.SMTPServerDisconnected"}
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert (
        sum("Gave up on the email" in line and "after 5 attempt(s)" in line for line in errors) == 2
    )


def test_an_address_refused_for_good_is_not_retried_and_stops_nobody_else(
    submitted, mailoutbox, monkeypatch
):
    refused = smtplib.SMTPRecipientsRefused({"rita@example.org": (550, b"No such user")})
    failing(monkeypatch, times=1, error=refused, only_to="rita@example.org")
    run_worker()
    assert [message.to for message in mailoutbox] == [["ravi@example.org"]]
    assert not waiting_tasks().exists()
    (failed,) = DBTaskResult.objects.failed()
    assert failed.args_kwargs["args"][0]["to"] == "rita@example.org"


def test_a_mailbox_that_is_busy_for_now_is_retried(submitted, mailoutbox, monkeypatch):
    busy = smtplib.SMTPRecipientsRefused({"rita@example.org": (450, b"Mailbox busy")})
    failing(monkeypatch, times=1, error=busy, only_to="rita@example.org")
    run_worker()
    assert delays() == [1]


# --- a real SMTP server on loopback -----------------------------------------------------


class Inbox:
    """aiosmtpd's handler: keeps what it is given."""

    def __init__(self):
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_email_reaches_a_real_smtp_server_once_it_answers(
    settings, django_capture_on_commit_callbacks
):
    port = free_port()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5},
        }
    }
    editor = UserFactory(username="eddie", role="editor", email="eddie@example.org")
    UserFactory(username="rita", role="reviewer", email="rita@example.org")
    case = CaseFactory(
        public_id="IL-0300", status=Status.DRAFT, published_at=None, created_by=editor
    )
    with django_capture_on_commit_callbacks(execute=True):
        workflow.case_submit(case=case, user=editor)

    run_worker()  # nothing listens on the port yet: the connection is refused
    assert delays() == [1]

    inbox = Inbox()
    server = Controller(inbox, hostname="127.0.0.1", port=port)
    server.start()
    try:
        let_time_pass(timedelta(minutes=1))
        run_worker()
        run_worker()
    finally:
        server.stop()
    (envelope,) = inbox.envelopes
    assert envelope.rcpt_tos == ["rita@example.org"]
    message = email.message_from_bytes(envelope.content, policy=email.policy.default)
    assert message["Subject"].strip().startswith("[Incident Library] IL-0300 waits for your review")
    assert f"/admin/cases/case/{case.pk}/change/" in message.get_content()
    assert DBTaskResult.objects.successful().count() == 3  # enqueue, the refused try, the send
    assert not DBTaskResult.objects.failed().exists()
