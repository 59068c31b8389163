"""An import runs below the site's priority, and leaves priorities as they were."""

import os

import pytest
from django.db import connection

from cases.exchange.importer import CaseImporter
from cases.exchange.reading import Input

pytestmark = pytest.mark.django_db


def backend_pid():
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def niceness(pid):
    return os.getpriority(os.PRIO_PROCESS, pid)


def may_renice(pid):
    """Whether this process may lower and restore that one's priority (root may)."""
    return os.geteuid() == 0 and pid is not None


def test_an_import_runs_niced_and_restores_priorities(settings, seed_case, write_json):
    settings.IMPORT_NICENESS = 5
    path = write_json("case.json", seed_case)
    backend = backend_pid()
    before = niceness(0), niceness(backend) if backend else None
    during = []

    def progress(done, total):
        current = backend_pid()
        during.append((niceness(0), niceness(current) if current else None))

    result = CaseImporter([Input(str(path), path, json_lines=False)], progress=progress).run()
    assert result.created and during
    own, server = during[-1]
    assert own == min(before[0] + 5, 19)  # the most a niceness can be
    if may_renice(backend):  # PostgreSQL on this machine
        assert server == min(before[1] + 5, 19)
    if os.geteuid() == 0:
        assert niceness(0) == before[0]
    current = backend_pid()
    if current is not None and current == backend:
        assert niceness(current) == before[1]
