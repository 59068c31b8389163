import contextlib
import functools
import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver

from cases.rendering_ahead import RENDERED_AHEAD

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


def statement_timeout_for(request):
    if request.path.startswith(ADMIN_PREFIX):
        return settings.ADMIN_STATEMENT_TIMEOUT_MS
    return settings.PUBLIC_STATEMENT_TIMEOUT_MS


def limited(milliseconds, execute, sql, params, many, context):
    """A query of a request, on a connection set to the request's statement timeout first
    if it is not already (a persistent connection keeps it: a worker of public pages sets
    it once). Set only on a connection the request queries: an anonymous page that reads
    the replica leaves the primary alone. Set by the driver's own cursor, so that it is no
    query of the page's."""
    connection = context["connection"]
    if getattr(connection, "statement_timeout_ms", None) != milliseconds:
        with connection.connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [str(milliseconds)])
        connection.statement_timeout_ms = milliseconds
    return execute(sql, params, many, context)


@receiver(connection_created)
def forget_the_timeout(sender, connection, **kwargs):
    connection.statement_timeout_ms = None  # a new session has the server's default


@contextlib.contextmanager
def statement_timeout(milliseconds):
    """Queries within run on PostgreSQL with this statement timeout: a request's, and work
    a public request leaves for after its answer (cases.catalogue.search_checks)."""
    wanted = functools.partial(limited, milliseconds)
    with contextlib.ExitStack() as stack:
        for alias in settings.DATABASES:
            connection = connections[alias]
            if connection.vendor == "postgresql":
                stack.enter_context(connection.execute_wrapper(wanted))
        yield


class StatementTimeoutMiddleware:
    """Each request's queries on PostgreSQL run with its statement timeout (see above)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if RENDERED_AHEAD in request.META:  # in an import's transaction, under its limit
            return self.get_response(request)
        with statement_timeout(statement_timeout_for(request)):
            return self.get_response(request)
