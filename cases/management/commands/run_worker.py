"""The background worker as the site runs it: django-tasks-db's `db_worker`, below the
readers' priority.

No reader waits for its work: emails, scheduled steps (a minute's grain), the open data a
minute after changes. At the readers' priority, in a session of its own (as systemd or
`setsid` start it), it ran each correction's two emails' tasks with the weight of all of
an app server's workers together. So it lowers itself, its session where it leads
it and its PostgreSQL backends by WORKER_NICENESS, as the editors' app server does
(cases.exchange.priority.process_below_readers).
"""

import os

from django.conf import settings
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorker

from cases.exchange.priority import process_below_readers


class Command(DatabaseWorker):
    help = (
        "Run the background tasks (emails, scheduled steps, the open data) below the "
        "readers' priority (WORKER_NICENESS); the options are db_worker's."
    )

    def handle(self, *args, **options):
        # With --reload (DEBUG's default) this process only watches the code, and the one
        # it starts runs the tasks and comes here again: that one is lowered, once.
        watching = options["reload"] and not options["batch"]
        if not watching or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            process_below_readers(settings.WORKER_NICENESS)
        return super().handle(*args, **options)
