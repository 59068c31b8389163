"""The app server for editors: `gunicorn incidentlib.wsgi_editors`, with the load balancer
sending /admin/ (and editors' sign-in) to it. It is the same application, run below the
readers' app servers' priority (EDITORS_NICENESS, cases.exchange.priority): on a machine
they share, an editor's save or approval takes the CPU the readers leave."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "incidentlib.settings.production")
application = get_wsgi_application()

from cases.exchange.priority import process_below_readers  # noqa: E402 (needs the apps)

process_below_readers(settings.EDITORS_NICENESS)
