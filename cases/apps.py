from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CasesConfig(AppConfig):
    name = "cases"
    verbose_name = _("Incident cases")

    def ready(self):
        from django.core.signals import request_finished

        from incidentlib import heap

        request_finished.connect(heap.request_finished, dispatch_uid="heap-freeze")
