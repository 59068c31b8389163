import logging

from django.db import InterfaceError, OperationalError

from .errors import database_unavailable

logger = logging.getLogger(__name__)


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
