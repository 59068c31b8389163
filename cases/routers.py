"""Anonymous reads may go to a PostgreSQL read replica; everything else uses the primary.

`ReadReplicaMiddleware` marks a request as a public read (a GET or HEAD by an anonymous
reader, outside the admin) only when a `replica` database is configured
(REPLICA_DATABASE_URL) and READ_REPLICA_ENABLED is on. The admin, the importer and every
write always use `default`.
"""

from contextvars import ContextVar

from django.conf import settings

from cases.rendering_ahead import RENDERED_AHEAD

REPLICA = "replica"
_public_read = ContextVar("public_read", default=False)


def replica_enabled():
    return getattr(settings, "READ_REPLICA_ENABLED", False) and REPLICA in settings.DATABASES


class ReplicaRouter:
    def db_for_read(self, model, **hints):
        return REPLICA if _public_read.get() and replica_enabled() else "default"

    def db_for_write(self, model, **hints):
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True  # the replica holds the same rows as the primary

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == "default"


class ReadReplicaMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        public_read = (
            replica_enabled()
            and request.method in ("GET", "HEAD")
            and not request.path.startswith("/admin/")
            and not request.user.is_authenticated  # read from the primary: sessions live there
            # A page an import renders ahead shows the content of its transaction.
            and RENDERED_AHEAD not in request.META
        )
        token = _public_read.set(public_read)
        try:
            return self.get_response(request)
        finally:
            _public_read.reset(token)
