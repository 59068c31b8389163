"""The editors' app server (incidentlib.wsgi_editors) runs below the readers' priority.

The finding: under `make load`, an editor approving one correction a second worked at the
readers' priority, and their requests waited behind it (p99 1.69× in the hot set, 4.33× in
the broad mix, on 2026-12-04).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
AUTOGROUP = Path("/proc/self/autogroup")

# Loads the editors' WSGI application as gunicorn's worker would, then opens a connection:
# its own niceness, its session's, and its PostgreSQL backend's (or -).
PROBE = """
import os, sys
sys.path.insert(0, os.getcwd())
from pathlib import Path
group = Path("/proc/self/autogroup")
session = lambda: group.read_text().split()[-1] if group.exists() else "-"
before = session()
import incidentlib.wsgi_editors
from django.db import connection
backend = "-"
if connection.vendor == "postgresql" and (connection.settings_dict["HOST"] or "") in (
    "", "localhost", "127.0.0.1", "::1"
):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = os.getpriority(os.PRIO_PROCESS, cursor.fetchone()[0])
print(os.getpriority(os.PRIO_PROCESS, 0), before, session(), backend)
"""


# Runs the command it is given, and passes on what it printed and how it ended.
RELAY = """
import subprocess, sys
ran = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(ran.stdout)
sys.stderr.write(ran.stderr)
sys.exit(ran.returncode)
"""


def probe(*, shared_session=False, niceness=6):
    """What PROBE printed; `niceness` None: EDITORS_NICENESS left to its default."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings.test"}
    env.pop("EDITORS_NICENESS", None)
    if niceness is not None:
        env["EDITORS_NICENESS"] = str(niceness)
    if connection.vendor == "postgresql":  # (the test database: it exists)
        settings = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{settings['USER']}:{settings['PASSWORD']}@{settings['HOST'] or ''}"
            f":{settings['PORT'] or 5432}/{settings['NAME']}"
        )
    command = [sys.executable, "-c", PROBE]
    if shared_session:
        # A worker of an app server started in a session it shares: the session's leader
        # is neither the worker nor its parent.
        command = [sys.executable, "-c", RELAY, sys.executable, "-c", RELAY, *command]
    ran = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,  # however the tests themselves were started
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    own, before, after, backend = ran.stdout.split()
    return int(own), before, after, backend


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
