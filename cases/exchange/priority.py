"""An import runs below the public site's priority: on a machine it shares with the app
servers it takes the CPU they leave, and readers keep their speed while it runs. So does the
app server that serves the editors (incidentlib.wsgi_editors: `process_below_readers`), and
the background worker (`manage.py run_worker`).

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
import time
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection, connections
from django.db.backends.signals import connection_created

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


def _database_backend(of=connection):
    """The pid of this connection's PostgreSQL backend, if it runs on this machine."""
    if of.vendor != "postgresql":
        return None
    host = of.settings_dict.get("HOST") or ""
    if host not in LOCAL_HOSTS and not host.startswith("/"):
        return None
    with of.cursor() as cursor:
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


def _set_session(niceness):
    """Set this process's session's niceness under autogroup; whether that was allowed."""
    try:
        AUTOGROUP.write_text(str(min(niceness, 19)))
    except OSError:
        return False
    return True


def process_below_readers(step):
    """For a process that serves editors or runs background tasks, for as long as it
    lives: lower it by `step`, its session too if the session is its own or its app
    server's (gunicorn's master leads it, as systemd or `setsid` start it), and each
    PostgreSQL backend it opens, where the operating system allows. Readers' app servers
    then take the CPU first: an editor's save or approval (about a hundred queries, a tenth
    of a second of CPU) waits for them rather than they for it. Nothing is raised back; a
    process that raised a priority it lowered would need privilege."""
    if not step:
        return
    _lower(0, step)
    session = _autogroup_niceness()
    if session is not None and os.getsid(0) in (os.getpid(), os.getppid()):
        _set_session(max(session, step))  # (each of the server's workers says so)

    def lower_backend(connection, **_kwargs):
        backend = _database_backend(connection)
        if backend:
            _lower(backend, step)  # (from PostgreSQL's own, as the readers' backends have)

    connection_created.connect(lower_backend, weak=False, dispatch_uid="backends-below-readers")
    for open_connection in connections.all(initialized_only=True):
        if open_connection.connection is not None:
            lower_backend(open_connection)


def _autogroup_niceness():
    """This session's niceness under autogroup ("/autogroup-85 nice 0"), or None."""
    try:
        return int(AUTOGROUP.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def session_below_readers():
    """For a command, or the worker's build of the open data: lower this process's session
    while it runs, if the process leads the session (it holds no one else's work) and the
    kernel shares the CPU by sessions."""
    step = settings.IMPORT_NICENESS
    before = _autogroup_niceness()
    if not step or before is None or os.getsid(0) != os.getpid():
        yield
        return
    lowered = _set_session(before + step)
    try:
        yield
    finally:
        if lowered:
            _restore_session(before)


def _restore_session(niceness):
    # Back to a niceness of 0 or more needs no privilege, but the kernel takes one change
    # of an autogroup a tenth of a second from an unprivileged process: a short build would
    # find the change back refused (EAGAIN), and leave a long-lived worker lowered.
    for _attempt in range(3):
        if _set_session(niceness):
            return
        time.sleep(0.11)
