"""One import or restore at a time on a database.

Two imports of new cases at once would both find their ids free, and the second would
fail inside its COPY on the unique index (PostgreSQL), or wait past SQLite's timeout for
the first one's write lock: a traceback either way. So the second waits for the first,
says so, and then finds the first one's cases in the database like any others.

PostgreSQL: an advisory lock, which every app server and shell sees. SQLite: a lock file
beside the database file, which every process on its machine sees.
"""

import contextlib
import fcntl
import threading
from pathlib import Path

from django.db import DatabaseError, connections

# An advisory lock's key: any number of our own, the same in every process.
IMPORT_LOCK_KEY = 0x494C_4950  # "ILIP"
_held = threading.local()  # alias -> how many times this thread holds it


@contextlib.contextmanager
def exclusive_import(using="default", *, waiting=None):
    """Hold the database's import lock for the block (again, if this thread holds it);
    `waiting()` is called first when another process holds it."""
    depth = getattr(_held, using, 0)
    if depth:
        setattr(_held, using, depth + 1)
        try:
            yield
        finally:
            setattr(_held, using, depth)
        return
    connection = connections[using]
    lock = _advisory_lock if connection.vendor == "postgresql" else _file_lock
    with lock(connection, waiting or (lambda: None)):
        setattr(_held, using, 1)
        try:
            yield
        finally:
            setattr(_held, using, 0)


@contextlib.contextmanager
def _advisory_lock(connection, waiting):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [IMPORT_LOCK_KEY])
        if not cursor.fetchone()[0]:
            waiting()
            cursor.execute("SELECT pg_advisory_lock(%s)", [IMPORT_LOCK_KEY])
    try:
        yield
    finally:
        # A connection that broke meanwhile took its lock with it.
        with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [IMPORT_LOCK_KEY])


@contextlib.contextmanager
def _file_lock(connection, waiting):
    name = str(connection.settings_dict["NAME"])
    if not name or name == ":memory:" or name.startswith("file:"):
        yield  # a database of this process alone
        return
    with Path(f"{name}.import-lock").open("a") as file:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)
