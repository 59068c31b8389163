"""The editors' app server (incidentlib.wsgi_editors) runs below the readers' priority.

The finding: under `make load`, an editor approving one correction a second worked at the
readers' priority, and their requests waited behind it (p99 1.69× in the hot set, 4.33× in
the broad mix, on 2026-12-04).
"""

import os

import pytest

from tests.priority_probe import AUTOGROUP, run_probe

pytestmark = pytest.mark.django_db

# Loads the editors' WSGI application as gunicorn's worker would, then opens a connection.
PROBE = """
before = session()
import incidentlib.wsgi_editors
report(before)
"""


def probe(*, shared_session=False, niceness=6):
    """What PROBE reported; `niceness` None: EDITORS_NICENESS left to its default."""
    return run_probe(
        PROBE, environment={"EDITORS_NICENESS": niceness}, shared_session=shared_session
    )


def test_the_editors_server_its_session_and_its_database_backends_run_below_readers():
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    own, before, after, backend = probe()
    assert own == min(niceness + 6, 19)
    if AUTOGROUP.exists():  # the kernel shares the CPU by sessions first
        assert int(after) == max(int(before), 6)
    if backend != "-" and os.geteuid() == 0:  # a backend on this machine, ours to renice
        assert int(backend) >= 6


def test_by_default_the_editors_server_runs_below_readers_but_keeps_a_share_of_the_cpu():
    """The finding (#21, 2026-12-05): at the lowest priority, 19, an editors' session weighs
    a 70th of a readers' server's. When readers took every core a correction took 3.3 s, two
    editors made 0.6 a second, and `make load` measured its rows under corrections at that
    pace. At 10 a correction took 0.5 s, the pace of one a second was kept and readers lost
    no more (bench/RESULTS.md, "Editors' sessions at 10")."""
    own, before, after, _backend = probe(niceness=None)
    assert own == min(os.getpriority(os.PRIO_PROCESS, 0) + 10, 19)
    if AUTOGROUP.exists():
        assert int(after) == max(int(before), 10)


def test_zero_leaves_the_editors_server_at_the_readers_priority():
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    own, before, after, backend = probe(niceness=0)
    assert own == niceness and after == before
    if backend != "-":
        assert int(backend) <= niceness


def test_an_editors_server_in_a_session_it_shares_leaves_the_session_alone():
    if not AUTOGROUP.exists():
        pytest.skip("the kernel shares no CPU by sessions")
    own, before, after, _backend = probe(shared_session=True)
    assert after == before
    assert own == min(os.getpriority(os.PRIO_PROCESS, 0) + 6, 19)  # the worker itself is lowered
