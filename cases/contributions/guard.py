"""What keeps machines out of the forms readers send us, without any outside service.

A form a reader sends (a suggested case, a reported problem) carries two hidden fields:
- a honeypot, `website`, that people never see and so leave empty, and that form-filling
  robots fill;
- `issued`, when the form was rendered, signed so that it cannot be forged: a form sent
  sooner than MIN_SECONDS after it was shown was not filled in by a person, and one older
  than MAX_AGE is stale.
The view adds a per-address rate limit (incidentlib.ratelimit) and Django's CSRF check.
A refusal names no field a robot could learn from; a person is told what to do.
"""

import time

from django import forms
from django.core import signing
from django.utils.translation import gettext_lazy as _

MIN_SECONDS = 3  # nobody reads a form and writes a useful note faster
MAX_AGE = 24 * 3600
SALT = "cases.contributions.guard"
TOO_FAST = _("That was quicker than anyone can read the form. Please check it and send it again.")


def issued_now():
    return signing.dumps(int(time.time()), salt=SALT)


class GuardedForm(forms.Form):
    """A public form with a honeypot and a signed time of issue (see the module)."""

    website = forms.CharField(
        required=False,
        label=_("Leave this empty"),
        widget=forms.TextInput(attrs={"autocomplete": "off", "tabindex": "-1"}),
    )
    issued = forms.CharField(widget=forms.HiddenInput)

    # The reason the last clean() refused the form as a robot's, for the view to record.
    refused_as = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial["issued"] = issued_now()

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("website"):
            self.refused_as = "honeypot"
        else:
            self.refused_as = self._time_refusal(self.data.get("issued", ""))
        if self.refused_as == "too fast":
            raise forms.ValidationError(TOO_FAST, code="too_fast")
        if self.refused_as:
            raise forms.ValidationError(
                _("This form has expired or could not be checked. Please send it again."),
                code="expired",
            )
        return cleaned

    @staticmethod
    def _time_refusal(value):
        try:
            issued = signing.loads(value, salt=SALT, max_age=MAX_AGE)
        except signing.BadSignature:  # SignatureExpired is one
            return "expired or forged"
        if not isinstance(issued, int) or time.time() - issued < MIN_SECONDS:
            return "too fast"
        return None

    def fresh_issue(self):
        """After a refusal the form is shown again with a new time of issue, and the
        honeypot empty: a person whose browser filled it in can simply send it again."""
        data = self.data.copy()
        data["issued"] = issued_now()
        data["website"] = ""
        self.data = data
