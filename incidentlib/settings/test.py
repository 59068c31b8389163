"""The test suite: fast hashing, in-memory SQLite unless DATABASE_URL says otherwise."""

import os
import tempfile

from .base import *  # noqa: F403
from .base import database_from_env

DEBUG = False
SECRET_KEY = "test-only-key"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
if not os.environ.get("DATABASE_URL"):
    # A file, not memory: the browser tests' live server answers from several threads,
    # and an in-memory SQLite database cannot be shared between them.
    # TEST_SQLITE_NAME lets two test runs share a checkout without sharing a database.
    TEST_FILE = VAR_DIR / os.environ.get("TEST_SQLITE_NAME", "test.sqlite3")  # noqa: F405
    DATABASES = {"default": database_from_env(TEST_FILE)}
    DATABASES["default"]["TEST"] = {"NAME": str(TEST_FILE)}
    # Each test runs in one transaction: begun IMMEDIATE it would hold the write lock for
    # the whole test, and a manage.py the test runs on the same file would wait in vain.
    del DATABASES["default"]["OPTIONS"]["transaction_mode"]
STORAGES["staticfiles"]["BACKEND"] = (  # noqa: F405
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)

# A replica that mirrors the test database, so the router can be tested; it is used only
# where a test turns READ_REPLICA_ENABLED on.
DATABASES["replica"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}  # noqa: F405
READ_REPLICA_ENABLED = False

# Requests in tests run with no statement timeout: a test's own slow statements (a flush,
# a fixture) after a request would otherwise meet the public one. Its tests set their own
# (tests/incidentlib/test_statement_timeout.py).
PUBLIC_STATEMENT_TIMEOUT_MS = 0
ADMIN_STATEMENT_TIMEOUT_MS = 0
IMPORT_NICENESS = 0  # tests that need it set it; a niced thread cannot always be restored
WORKER_NICENESS = 0  # (the tests' worker runs in the tests' process: tests/worker.py)

RENDER_AHEAD_PAGES = 0  # (tests/test_rendering_ahead.py turns it on)
HEAP_FREEZE_AFTER = 0  # a test's objects are not a server's (tests/incidentlib/test_heap.py)
# Tests of the bulk data turn its rebuilds on; others' tasks stay as they were.
OPEN_DATA_REBUILD = False
STORAGES["open_data"]["OPTIONS"]["location"] = tempfile.mkdtemp(prefix="il-open-data-")  # noqa: F405
# Tests make many requests from one address; the rate limit's own tests set theirs.
API_REQUESTS_PER_MINUTE = 100_000
