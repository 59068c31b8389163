"""Background tasks in a test: the real worker (`manage.py run_worker`) in batch mode, in
this process, and time that passes for the tasks that wait."""

import io
import signal
from unittest import mock

from django.core.management import call_command
from django.db.models import F
from django.tasks import TaskResultStatus
from django.test import TestCase
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult, get_date_max

# No test's chain of tasks is this long: a longer one is a task that requeues itself at once.
MAX_ROUNDS = 20


def run_worker():
    """Run every task that is due, and those they enqueue, as a worker would; return the
    task results that finished, in order.

    Inside a test's transaction `on_commit` never fires, so each round's callbacks (a task
    that approves a case enqueues its emails on commit) run when the round ends, and the
    next round runs what they enqueued.
    """
    finished = DBTaskResult.objects.filter(finished_at__isnull=False)
    before = set(finished.values_list("id", flat=True))
    for _round in range(MAX_ROUNDS):
        with TestCase.captureOnCommitCallbacks(execute=True) as callbacks:
            _run_batch()
        if not callbacks and not DBTaskResult.objects.ready().exists():
            break
    else:
        raise AssertionError("tasks kept enqueueing tasks that were due at once")
    return list(finished.exclude(id__in=before).order_by("finished_at"))


def _run_batch():
    # The worker installs its own SIGINT and SIGTERM handlers: give pytest its own back.
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    # The worker closes connections it finds inside a transaction, as it should between
    # tasks; a test's connection is inside the test's transaction for good. (Django's test
    # client likewise keeps requests from closing it.)
    no_closing = mock.patch.object(db_worker, "close_old_connections", lambda: None)
    try:
        with no_closing:
            call_command(
                "run_worker",
                batch=True,
                interval=0,
                startup_delay=False,
                reload=False,
                queue_name="*",
                worker_id="test-worker",
                stdout=io.StringIO(),
            )
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def waiting_tasks():
    """Tasks deferred to a later time, soonest first."""
    ready = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    return ready.exclude(run_after=get_date_max()).order_by("run_after")


def let_time_pass(delta):
    """As if `delta` had passed for every deferred task: each becomes due that much sooner."""
    waiting_tasks().update(run_after=F("run_after") - delta)
