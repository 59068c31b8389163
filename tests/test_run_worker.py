"""The background worker (`manage.py run_worker`) runs below the readers' priority.

The finding (#21, 2026-12-07): `make load`'s worker, started in a session of its own as
systemd or `setsid` start it, ran at the readers' priority. Each correction a second gave
it two emails' tasks to run (5.9 ms of CPU each, 12 ms a correction, measured with no email
to send), which took the CPU at once, with the weight of all four of gunicorn's workers
together, while the editors who made the correction waited below the readers.
"""

import os

import pytest
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV

from tests.priority_probe import AUTOGROUP, run_probe

pytestmark = pytest.mark.django_db

# The command as a supervisor runs it, up to where its worker would take tasks: there the
# probe reports instead. Under --reload the command is run again in a process of its own
# (django.utils.autoreload): here the probe's process runs in its place.
PROBE = """
import io
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
from django_tasks_db.management.commands import db_worker
settings.WORKER_NICENESS = {niceness}
before = session()
db_worker.Worker.run = lambda worker: report(before)
db_worker.run_with_reloader = lambda main: main()
call_command(
    "run_worker", batch={batch}, reload={reload}, startup_delay=False, interval=0,
    stdout=io.StringIO(),
)
"""


def probe(*, niceness=6, batch=True, reload=False, reloaded=False, shared_session=False):
    code = PROBE.format(niceness=niceness, batch=batch, reload=reload)
    environment = {DJANGO_AUTORELOAD_ENV: "true" if reloaded else None}
    return run_probe(code, environment=environment, shared_session=shared_session)


def ours():
    return os.getpriority(os.PRIO_PROCESS, 0)


def test_the_worker_its_session_and_its_database_backends_run_below_readers():
    own, before, after, backend = probe()
    assert own == min(ours() + 6, 19)
    if AUTOGROUP.exists():  # the kernel shares the CPU by sessions first
        assert int(after) == max(int(before), 6)
    if backend != "-" and os.geteuid() == 0:  # a backend on this machine, ours to renice
        assert int(backend) >= 6


def test_zero_leaves_the_worker_at_the_readers_priority():
    own, before, after, backend = probe(niceness=0)
    assert own == ours() and after == before
    if backend != "-":
        assert int(backend) <= ours()


def test_a_worker_in_a_session_it_shares_leaves_the_session_alone():
    """`make run` starts the worker beside the development server, in the terminal's session."""
    if not AUTOGROUP.exists():
        pytest.skip("the kernel shares no CPU by sessions")
    own, before, after, _backend = probe(shared_session=True)
    assert after == before
    assert own == min(ours() + 6, 19)


def test_under_reload_only_the_process_that_runs_the_tasks_is_lowered_and_once():
    """With DEBUG, db_worker reloads on code changes: the first process only watches the
    files and starts the one that runs the tasks, which inherits its priority."""
    watching = probe(reload=True, batch=False)
    assert watching[0] == ours()
    running = probe(reload=True, batch=False, reloaded=True)
    assert running[0] == min(ours() + 6, 19)
    batch = probe(reload=True, batch=True)  # (db_worker does not reload a batch)
    assert batch[0] == min(ours() + 6, 19)
