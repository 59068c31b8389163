"""Report a problem, on a case page: the form a reader sends, and the thanks after it.

The case page links here with plain HTML (it is cached for every anonymous reader, so it
carries no CSRF token); this page is never cached. What a report may hold and what storing
one does are cases.contributions.reports'; the machines are kept out by the guard
(cases.contributions.guard), the CSRF check and a per-address limit.
"""

import logging
import math

from django import forms
from django.conf import settings
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from cases.contributions import reports
from cases.contributions.guard import GuardedForm
from cases.editorial.rights import WorkflowError
from cases.models import Case
from cases.models.reports import MAX_TEXT_LENGTH
from cases.rules import MAX_URL_LENGTH, number
from incidentlib.ratelimit import Limit, too_many

from .views import public_case

logger = logging.getLogger(__name__)


def problem_reports_limit():
    return Limit("problem-reports", settings.PROBLEM_REPORTS_PER_HOUR, 3600)


class ProblemReportForm(GuardedForm):
    # No max_length on the fields: a browser would cut a pasted text short without a word;
    # the rules say how long it may be, and by how much it is over.
    text = forms.CharField(
        label=_("What is wrong?"),
        widget=forms.Textarea(attrs={"rows": 8}),
        error_messages={"required": _("Say what is wrong first.")},
    )
    source_url = forms.CharField(
        label=_("Source (optional)"),
        help_text=_("A link where it is told otherwise (http or https)."),
        required=False,
        widget=forms.URLInput(attrs={"inputmode": "url", "autocomplete": "url"}),
    )
    email = forms.CharField(
        label=_("Your email (optional)"),
        help_text=_("Only if you would like an answer. Only the case's editors see it."),
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    field_order = ["text", "source_url", "email", "website", "issued"]

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")  # "What is wrong?" is a question, not "…?:"
        super().__init__(*args, **kwargs)
        # Formatted here, in the reader's language (at import it would be English's).
        self.fields["text"].help_text = gettext(
            "A fact, a date, a translation, a broken link: up to %(max)s characters."
        ) % {"max": number(MAX_TEXT_LENGTH)}

    def clean_text(self):
        return self._checked(reports.text_problem, "text", empty=_("Say what is wrong first."))

    def clean_source_url(self):
        value = self.cleaned_data["source_url"].strip()
        if len(value) > MAX_URL_LENGTH * 2:  # not shown back whole in the message
            raise forms.ValidationError(_("The source is too long to be a link."))
        return self._checked(reports.source_problem, "source_url")

    def clean_email(self):
        return self._checked(reports.email_problem, "email")

    def _checked(self, problem_of, name, **options):
        value = self.cleaned_data[name].strip()
        if problem := problem_of(value, **options):
            raise forms.ValidationError(problem)
        return value


def reportable_case(public_id):
    """The published case (never a pending revision's copy), or Http404; a withdrawn one
    is returned for the view to answer 410, as its page does."""
    return public_case(public_id, Case.objects.live().select_related("org"))


def gone(request, case):
    return render(request, "cases/case_gone.html", {"case": case}, status=410)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def case_report(request, public_id):
    case = reportable_case(public_id)
    if case.status == Case.Status.WITHDRAWN:
        return gone(request, case)
    if request.method != "POST":
        return render(request, "cases/report.html", {"case": case, "form": ProblemReportForm()})
    if wait := problem_reports_limit().wait(request):
        page = render(
            request,
            "cases/report_too_many.html",
            {"case": case, "minutes": math.ceil(wait / 60)},
        )
        return too_many(page, wait)
    form = ProblemReportForm(request.POST)
    if form.is_valid():
        try:
            reports.report_file(
                case=case,
                text=form.cleaned_data["text"],
                source_url=form.cleaned_data["source_url"],
                email=form.cleaned_data["email"],
                language=get_language(),
            )
        except WorkflowError as refused:  # the case changed meanwhile, say
            form.add_error(None, str(refused))
        else:
            return redirect("cases:report-thanks", public_id=case.public_id)
    if form.refused_as:
        logger.info("A problem report on %s refused: %s", case.public_id, form.refused_as)
        form.fresh_issue()
    return render(request, "cases/report.html", {"case": case, "form": form})


@never_cache
@require_safe
def case_report_thanks(request, public_id):
    case = reportable_case(public_id)
    if case.status == Case.Status.WITHDRAWN:
        return gone(request, case)
    return render(request, "cases/report_thanks.html", {"case": case})
