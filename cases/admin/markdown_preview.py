"""The case form's live preview: beside each long text (English and Korean, and each step's
text), what the public page will show, as the editor types.

The browser (static/admin/js/markdown-preview.js) posts the texts to `preview_view`, which
renders them with cases.markdown.render, the public page's own renderer: the preview is the
page, not an imitation of it in JavaScript. Several texts go in one request (all of them
when the form opens), each refused with the validator's words if it is longer than a case
may hold, so no request costs more than a few texts' worth of rendering.
"""

import json
import re

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed, JsonResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from cases import rules
from cases.exchange.fields import too_long
from cases.markdown import render

# The case's long texts (the title and the impact values are plain text) and the steps'.
MARKDOWN_FIELDS = tuple(field for field in rules.TRANSLATED_FIELDS if field != "title")
STEPS_PREFIX = "steps"  # CaseStepInline's formset prefix: the related name of CaseStep.case
LANGUAGE_PATTERN = "|".join(rules.LANGUAGES)
TEXT_NAME = re.compile(rf"(?:{'|'.join(MARKDOWN_FIELDS)})_(?:{LANGUAGE_PATTERN})")
STEP_NAME = re.compile(rf"{STEPS_PREFIX}-\d+-text_(?:{LANGUAGE_PATTERN})")
# What one request may ask: the script sends at most this many texts at a time.
MAX_TEXTS_A_REQUEST = 40


def text_limit(name):
    """The longest text the form field called `name` may hold, or None if it is no
    Markdown text of the case form."""
    if TEXT_NAME.fullmatch(name):
        return rules.MAX_TEXT_LENGTH
    if STEP_NAME.fullmatch(name):
        return rules.MAX_STEP_LENGTH
    return None


def too_long_message(rule):
    return _("Too long to preview: %(rule)s.") % {"rule": rule}


def too_long_template():
    """The refusal with `%(max)s` and `%(count)s` left for the script to fill in."""
    return too_long_message(_("at most %(max)s characters, not %(count)s"))


def preview(name, text):
    limit = text_limit(name)
    if limit is None:
        return {"field": name, "error": _("This field has no preview.")}
    if len(text) > limit:
        return {"field": name, "error": too_long_message(too_long(len(text), limit))}
    return {"field": name, "html": str(render(text))}


class MarkdownPreviewMixin:
    """Mixed into CaseAdmin: the preview's view, and its script and stylesheet on the form."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.markdown_preview_view)
        return [
            path("markdown-preview/", view, name="cases_case_markdown_preview"),
        ] + super().get_urls()

    def markdown_preview_view(self, request):
        """POST `field` and `text`, repeated: {"previews": [{"field", "html" or "error"}]}.
        Staff only (admin_view), with the CSRF check; for whoever may add or change cases."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        names, texts = request.POST.getlist("field"), request.POST.getlist("text")
        if len(names) != len(texts) or len(names) > MAX_TEXTS_A_REQUEST:
            message = _("Send a field and a text for each preview, at most %(max)s at a time.")
            return JsonResponse({"error": message % {"max": MAX_TEXTS_A_REQUEST}}, status=400)
        previews = [preview(name, text) for name, text in zip(names, texts, strict=True)]
        return JsonResponse({"previews": previews})

    @property
    def media(self):
        # The limits go to the script too: a text over its limit is refused in the browser,
        # in the server's words, rather than sent (a pasted megabyte would be refused whole
        # by DATA_UPLOAD_MAX_MEMORY_SIZE, without saying which text).
        limits = [
            [f"^{TEXT_NAME.pattern}$", rules.MAX_TEXT_LENGTH],
            [f"^{STEP_NAME.pattern}$", rules.MAX_STEP_LENGTH],
        ]
        script = forms.Script(
            "admin/js/markdown-preview.js",
            defer=True,
            **{
                "data-url": reverse(f"{self.admin_site.name}:cases_case_markdown_preview"),
                "data-limits": json.dumps(limits),
                "data-too-long": too_long_template(),
                "data-batch": str(MAX_TEXTS_A_REQUEST),
                "data-label": _("Preview"),
                "data-empty": _("Nothing to preview yet."),
                "data-failed": _("The preview could not be updated; the text is not lost."),
                "data-hint": _(
                    "Markdown: *emphasis*, **strong**, lists with - or 1., "
                    "[links](https://…), `code`. The preview beside each text is the "
                    "public page's."
                ),
            },
        )
        own = forms.Media(js=[script], css={"all": ["admin/markdown-preview.css"]})
        return super().media + own
