"""Run a few lines of Python in a process of its own, in a session of its own (as systemd or
`setsid` start a server), against the tests' database, and return what they printed: what
a server's process sets its own priority to (tests of cases.exchange.priority's users)."""

import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
AUTOGROUP = Path("/proc/self/autogroup")

# What a probe prints of its process: its niceness, its session's before and after (or -),
# and its PostgreSQL backend's niceness, when that runs on this machine (or -).
REPORT = """
def session():
    group = Path("/proc/self/autogroup")
    return group.read_text().split()[-1] if group.exists() else "-"

def backend_niceness():
    from cases.exchange.priority import _database_backend
    backend = _database_backend()
    return os.getpriority(os.PRIO_PROCESS, backend) if backend else "-"

def report(before):
    print(os.getpriority(os.PRIO_PROCESS, 0), before, session(), backend_niceness())
"""

# Runs the command it is given, and passes on what it printed and how it ended.
RELAY = """
import subprocess, sys
ran = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(ran.stdout)
sys.stderr.write(ran.stderr)
sys.exit(ran.returncode)
"""


def run_probe(code, *, environment=None, shared_session=False):
    """What `code` reported (REPORT's `report`): (own niceness, session's before, session's
    after, backend's). It runs after REPORT's functions, with os, sys and Path imported and
    the working directory on the path; `environment`: variables to set (None: to unset)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "incidentlib.settings.test"}
    for name, value in (environment or {}).items():
        env.pop(name, None)
        if value is not None:
            env[name] = str(value)
    if connection.vendor == "postgresql":  # (the test database: it exists)
        settings = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{settings['USER']}:{settings['PASSWORD']}@{settings['HOST'] or ''}"
            f":{settings['PORT'] or 5432}/{settings['NAME']}"
        )
    source = "import os, sys\nsys.path.insert(0, os.getcwd())\nfrom pathlib import Path\n"
    command = [sys.executable, "-c", source + REPORT + code]
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
