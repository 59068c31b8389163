"""An import runs below the public site's priority: on a machine it shares with the app
servers it takes the CPU they leave, and readers keep their speed while it runs.

The importing thread is niced by settings.IMPORT_NICENESS; so is its PostgreSQL backend
when the server is on this machine and the operating system lets us (as root, or as the
user PostgreSQL runs as). A niced backend holds no lock readers wait for: they read
snapshots, and the import takes the content version's row only as it commits.

Linux with autogroup (the default on Debian) shares the CPU between sessions first, and a
niceness only orders the processes of one session: a command in a session of its own (run
by `setsid`, systemd or cron) would take as much CPU as all the app server's workers. Such
a command lowers its whole session while it runs (`session_below_readers`).
"""

import os
from contextlib import contextmanager, suppress
from pathlib import Path

from django.conf import settings
from django.db import connection

LOCAL_HOSTS = {"", "localhost", "127.0.0.1", "::1"}


def _set(pid, niceness):
    """Set a process's (or thread's) niceness; whether that was allowed."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, niceness)
    except OSError:  # not ours to change, or not on this machine
        return False
    return True


def _lower(pid, step):
    """Nice a process (0: this thread) by `step`; the niceness it had, or None."""
    try:
        before = os.getpriority(os.PRIO_PROCESS, pid)
    except OSError:
        return None
    return before if _set(pid, before + step) else None


def _database_backend():
    """The pid of this connection's PostgreSQL backend, if it runs on this machine."""
    if connection.vendor != "postgresql":
        return None
    host = connection.settings_dict.get("HOST") or ""
    if host not in LOCAL_HOSTS and not host.startswith("/"):
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@contextmanager
def below_readers():
    step = settings.IMPORT_NICENESS
    if not step:
        yield
        return
    own = _lower(0, step)
    backend = _database_backend()
    backend_before = _lower(backend, step) if backend else None
    try:
        yield
    finally:
        if own is not None:
            _set(0, own)  # back where it was, where that is allowed
        if backend_before is not None and not _set(backend, backend_before):
            connection.close()  # a backend left niced is not kept for other work


AUTOGROUP = Path("/proc/self/autogroup")


def _autogroup_niceness():
    """This session's niceness under autogroup ("/autogroup-85 nice 0"), or None."""
    try:
        return int(AUTOGROUP.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def session_below_readers():
    """For a command: lower this process's session, if the process leads it (it holds no
    one else's work) and the kernel shares the CPU by sessions."""
    step = settings.IMPORT_NICENESS
    before = _autogroup_niceness()
    if not step or before is None or os.getsid(0) != os.getpid():
        yield
        return
    try:
        AUTOGROUP.write_text(str(min(before + step, 19)))
        lowered = True
    except OSError:
        lowered = False
    try:
        yield
    finally:
        if lowered:
            # Raising it back needs privilege; without it, the session ends with us.
            with suppress(OSError):
                AUTOGROUP.write_text(str(before))
