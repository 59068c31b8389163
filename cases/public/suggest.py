"""The public form that suggests a case, and its thank-you page.

Never page-cached: it carries a CSRF token and a signed time of issue. What keeps machines
out is cases.contributions.guard (honeypot, minimum time to fill, signed issue),
CSRF, the size limits below and a per-address rate limit (SUGGESTIONS_PER_HOUR sendings,
mistakes included). A form refused as a robot's stores nothing and is shown again with a
message that names no field.
"""

import logging
import math

from django import forms
from django.conf import settings
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from cases.contributions.guard import GuardedForm
from cases.contributions.reports import MAX_EMAIL_LENGTH
from cases.contributions.suggestions import suggestion_create
from cases.models.contributions import MAX_NOTE_LENGTH
from cases.rules import EARLIEST_YEAR, MAX_NAME_LENGTH, MAX_URL_LENGTH, latest_allowed_date
from cases.validators import HttpUrlValidator
from incidentlib.ratelimit import Limit, too_many

logger = logging.getLogger(__name__)


class SuggestionForm(GuardedForm):
    source_url = forms.CharField(
        label=_("Where is the incident told?"),
        max_length=MAX_URL_LENGTH,
        validators=[HttpUrlValidator()],
        help_text=_(
            "The address (http or https) of a postmortem, status page, article or talk. "
            "At most 1,000 characters."
        ),
        widget=forms.URLInput(attrs={"placeholder": "https://", "autocomplete": "url"}),
    )
    organisation = forms.CharField(
        label=_("Organisation"),
        required=False,
        max_length=MAX_NAME_LENGTH,
        help_text=_("Whose incident it was. Optional; at most 200 characters."),
    )
    date = forms.DateField(
        label=_("Date"),
        required=False,
        input_formats=["%Y-%m-%d"],
        error_messages={"invalid": _("Enter a real date in the form YYYY-MM-DD, e.g. 2024-03-15.")},
        help_text=_("When it happened, if you know. Optional."),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    note = forms.CharField(
        label=_("Note"),
        required=False,
        max_length=MAX_NOTE_LENGTH,
        help_text=_(
            "Anything we should know: what failed, why it is worth a case. "
            "At most 5,000 characters."
        ),
        widget=forms.Textarea(attrs={"rows": 6}),
    )
    email = forms.EmailField(
        label=_("Your email"),
        required=False,
        max_length=MAX_EMAIL_LENGTH,
        help_text=_(
            "Optional, in case we have a question. Only our editors see it; it is never shown "
            "on the site."
        ),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    field_order = ["source_url", "organisation", "date", "note", "email"]

    def clean_date(self):
        date = self.cleaned_data.get("date")
        if date is not None and (date.year < EARLIEST_YEAR or date > latest_allowed_date()):
            raise forms.ValidationError(
                _("A date from %(year)s to today, please.") % {"year": EARLIEST_YEAR},
                code="out_of_range",
            )
        return date


def sending_limit():
    return Limit("suggest", settings.SUGGESTIONS_PER_HOUR, 3600)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def suggest(request):
    if request.method != "POST":
        return render(request, "cases/suggest.html", {"form": SuggestionForm()})
    if wait := sending_limit().wait(request):
        response = render(request, "cases/suggest_too_many.html", {"minutes": math.ceil(wait / 60)})
        return too_many(response, wait)
    form = SuggestionForm(request.POST)
    if form.is_valid():
        data = {name: form.cleaned_data[name] for name in SuggestionForm.field_order}
        suggestion_create(language=translation.get_language(), **data)
        return redirect("cases:suggest-thanks")
    if form.refused_as:
        logger.info("A suggested case was refused as a robot's: %s", form.refused_as)
    form.fresh_issue()
    return render(request, "cases/suggest.html", {"form": form})


@never_cache
@require_safe
def suggest_thanks(request):
    return render(request, "cases/suggest_thanks.html")
