import contextlib
import logging
import threading

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver

from .errors import database_unavailable

logger = logging.getLogger(__name__)
ADMIN_PREFIX = "/admin/"


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database answers 503 with the friendly page, not a 500.

    Nothing needs restarting when the database comes back: the failed query marked the
    connection as errored, and Django's close_old_connections, at the end of this request,
    closes it if it no longer answers, so the next request connects afresh.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, OperationalError | InterfaceError):
            logger.error("Database unavailable for %s: %s", request.path, exception)
            return database_unavailable(request)
        return None


# --- statement timeouts ------------------------------------------------------------------
# The lesson of IL-1002: requests that wait on a slow database pile up until none is
# answered. A public request's queries run with a statement timeout: a query past it is
# cut, and DatabaseUnavailableMiddleware answers 503 with Retry-After; the connection
# stays usable. The admin, where editors save whole cases, has a longer limit of its own;
# the importer sets its own in its transaction (cases.exchange.importer).
_wanted = threading.local()


def statement_timeout_for(request):
    if request.path.startswith(ADMIN_PREFIX):
        return settings.ADMIN_STATEMENT_TIMEOUT_MS
    return settings.PUBLIC_STATEMENT_TIMEOUT_MS


def limit_statements(connection, milliseconds):
    """Set a PostgreSQL connection's statement timeout, unless it has it already (a
    persistent connection keeps it: a worker of public pages sets it once)."""
    if connection.vendor != "postgresql" or milliseconds is None:
        return
    if getattr(connection, "statement_timeout_ms", None) == milliseconds:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('statement_timeout', %s, false)", [str(milliseconds)])
    connection.statement_timeout_ms = milliseconds


@receiver(connection_created)
def limit_new_connection(sender, connection, **kwargs):
    connection.statement_timeout_ms = None
    limit_statements(connection, getattr(_wanted, "milliseconds", None))


class StatementTimeoutMiddleware:
    """Each request's queries run with its statement timeout (see above): connections
    already open get it now, those the request opens get it as they open."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        _wanted.milliseconds = statement_timeout_for(request)
        try:
            for connection in connections.all(initialized_only=True):
                # Down: the view's own query will say so (503).
                if connection.connection is not None:
                    with contextlib.suppress(DatabaseError):
                        limit_statements(connection, _wanted.milliseconds)
            return self.get_response(request)
        finally:
            _wanted.milliseconds = None
