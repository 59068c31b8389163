from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .case import CaseAdmin
from .preferences import EditorPreferenceAdmin
from .problem_reports import ProblemReportAdmin
from .suggestions import SuggestionAdmin
from .taxonomy import OrganisationAdmin, TermAdmin

__all__ = [
    "CaseAdmin",
    "EditorPreferenceAdmin",
    "OrganisationAdmin",
    "SuggestionAdmin",
    "ProblemReportAdmin",
    "TermAdmin",
]

admin.site.site_header = _("Incident Library: editors")
admin.site.site_title = _("Incident Library editors")
admin.site.index_title = _("Cases, reviews and the taxonomy")
