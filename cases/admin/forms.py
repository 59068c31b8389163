"""The case form: whatever the editor typed, in all its parts, validated as one case by the
exchange format's validator, each problem shown beside the field it names.

The form and its inlines (terms, steps, sources, related cases) are read together into an
exchange-format object (`SubmittedCase`), remembering which form and field each of its
paths came from; the validator's problems go back there. The normal form it returns is what
the editorial save writes (cases.editorial.drafts.case_save).
"""

import datetime
import re

from django import forms
from django.contrib.admin.widgets import AdminTextareaWidget
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.editorial.drafts import lock_unchanged_since
from cases.editorial.ids import taken_id_problem
from cases.editorial.merging import opened_form
from cases.editorial.rights import EditConflict
from cases.exchange.fields import read_duration
from cases.exchange.spelling import format_datetime, format_duration, format_duration_for_people
from cases.exchange.validation import STEP_LIST_FIELDS, TERM_LIST_FIELDS, validate_case
from cases.models import LIST_VOCABULARIES, Case, CaseStep
from cases.rules import IMPACT_FIELDS, LANGUAGES, TRANSLATED_FIELDS

from .widgets import LinkListWidget

# The inlines, by formset prefix, and the exchange lists they fill.
TERMS, STEPS, SOURCES, RELATED = "case_terms", "steps", "sources", "outgoing_relations"
STEP_LISTS = {CaseStep.Kind.REMEDIATION: "remediation", CaseStep.Kind.ACTION_ITEM: "action_items"}
# Case form fields by exchange path, where the name is not simply the same.
FIELD_OF_PATH = {
    "id": "public_id",
    "org_slug": "org",
    "title": "title_en",
    "timeline.detected_after": "detected_after",
    "timeline.resolved_after": "resolved_after",
    "url": "source_url",
    "review.written_by": "written_by",
}
PARENT = re.compile(r"(?:\.[^.\[]+|\[\d+\])$")  # the last step of a path: `.url` or `[3]`
DOCUMENTATION_LINK = re.compile(r"docs\[(\d+)\]")


class DurationField(forms.Field):
    """A duration as editors write it: `3h 15m`, `PT3H15M` or `03:15:00` (also `2d 4h`,
    `45m`, `1:30`), read by the exchange format's own reader and refused in its words;
    shown back as `3h 15m`."""

    widget = forms.TextInput

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.help_text = self.help_text or gettext_lazy("such as 3h 15m, 45m, 2d 4h or PT3H15M")

    def widget_attrs(self, widget):
        return {**super().widget_attrs(widget), "class": "vDurationField", "spellcheck": "false"}

    def prepare_value(self, value):
        if isinstance(value, datetime.timedelta):
            return format_duration_for_people(value)
        return value

    def to_python(self, value):
        text = "" if value is None else str(value).strip()
        if not text:
            return None
        duration, problem = read_duration(text)
        if problem:
            raise forms.ValidationError(problem, code="invalid")
        return duration


class LinkListField(forms.Field):
    """Documentation links, one input each: the list of the links given, in their order,
    empty inputs left out. Whether each is a link is the validator's to say (docs[i])."""

    widget = LinkListWidget

    def __init__(self, *, encoder=None, decoder=None, **kwargs):
        # The model's JSONField offers its encoder and decoder, which a list of inputs does
        # not need; nor a hidden copy of its default (show_hidden_initial).
        kwargs["show_hidden_initial"] = False
        super().__init__(**kwargs)

    def to_python(self, value):
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        return [str(link).strip() for link in value if link and str(link).strip()]

    def has_changed(self, initial, data):
        return self.to_python(data) != list(initial or [])


def short_textarea(rows):
    """A text box `rows` high to begin with; admin/js/case-form.js grows it with its text."""
    return AdminTextareaWidget(attrs={"rows": rows})


# A summary is a paragraph or two, the other stories a few lines, an impact a line.
TEXT_ROWS = {"summary": 4, **dict.fromkeys(TRANSLATED_FIELDS[2:], 3)}
TEXT_ROWS.update({f"impact_{field}": 1 for field in IMPACT_FIELDS})


class CaseForm(forms.ModelForm):
    # The edit_version the editor started from: a save against an older one is refused,
    # and merged instead (cases.editorial.merging); `opened_as` is the case as the editor
    # opened it, signed, from which the merge proposes which side to take for each part.
    seen_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    opened_as = forms.CharField(widget=forms.HiddenInput, required=False, strip=False)

    class Meta:
        model = Case
        fields = "__all__"  # noqa: DJ007 - the admin narrows this to its fieldsets
        field_classes = {
            "detected_after": DurationField,
            "resolved_after": DurationField,
            "docs": LinkListField,
        }
        widgets = {
            f"{field}_{language}": short_textarea(rows)
            for field, rows in TEXT_ROWS.items()
            for language in LANGUAGES
        }

    # Given by CaseAdmin.get_form: the request, whose inlines' formsets it validates with it.
    request = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seen_version"].initial = self.instance.edit_version
        if self.instance.pk and not self.is_bound:
            self.fields["opened_as"].initial = opened_form(self.instance)
        self.exchange_case = None
        # Set when the case was saved by someone else since the editor opened it: the
        # editor's whole case, valid, to merge with theirs (admin.merge_views).
        self.merge_with = None
        # Lengths are the validator's to refuse, in its words (the browser still limits them).
        for field in self.fields.values():
            field.validators = [
                v for v in field.validators if not isinstance(v, MaxLengthValidator)
            ]

    def clean_public_id(self):
        # Two editors offered the same new id: the second is told here, and keeps the text.
        public_id = self.cleaned_data["public_id"]
        if public_id and (taken := taken_id_problem(public_id, case=self.instance)):
            raise forms.ValidationError(taken, code="taken")
        return public_id

    def clean(self):
        cleaned = super().clean()
        conflict = None
        if self.instance.pk:
            try:
                # Locks the row until this save ends, so two saves cannot both pass.
                lock_unchanged_since(self.instance, cleaned.get("seen_version"))
            except EditConflict as refused:
                conflict = refused
        submitted = SubmittedCase(self, getattr(self.request, "case_formsets", ()))
        normal, problems = validate_case(submitted.data)
        submitted.place(problems)
        self.exchange_case = normal
        if conflict is not None:
            if not problems:
                self.merge_with = normal
            raise forms.ValidationError(str(conflict), code="edit_conflict")
        return cleaned


class SubmittedCase:
    """The case as the form and its inlines hold it, in the exchange format."""

    def __init__(self, form, formsets):
        self.form = form
        self.places = {}  # exchange path -> (form or formset, field name or None)
        self.formsets = {formset.prefix: formset for formset in formsets}
        self.data = self.case_fields()
        for prefix, fill in (
            (TERMS, self.terms),
            (STEPS, self.steps),
            (SOURCES, self.sources),
            (RELATED, self.related),
        ):
            if prefix in self.formsets:
                fill(self.formsets[prefix])

    # --- the case form ---------------------------------------------------------------------

    def value(self, name):
        """A field's cleaned value, the stored one for a field the form does not show."""
        if name in self.form.fields:
            return as_typed(self.form.cleaned_data.get(name))
        return getattr(self.form.instance, name)

    def case_fields(self):
        value = self.value
        org = value("org")
        data = {
            "id": value("public_id"),
            "org": org.name if org else None,
            "org_slug": org.slug if org else None,
            "date": value("date").isoformat() if value("date") else None,
            "date_kind": value("date_kind") or None,
            "severity": value("severity") or None,
        }
        for field in TRANSLATED_FIELDS:
            data[field] = {language: value(f"{field}_{language}") or "" for language in LANGUAGES}
        data["impact"] = {
            field: {lang: value(f"impact_{field}_{lang}") or "" for lang in LANGUAGES}
            for field in IMPACT_FIELDS
        }
        root_cause, recurrence = value("root_cause"), value("recurrence_of")
        data["root_cause"] = root_cause.slug if root_cause else None
        data["timeline"] = {
            "detected_after": format_duration(value("detected_after")),
            "resolved_after": format_duration(value("resolved_after")),
        }
        data["recurrence_of"] = recurrence.public_id if recurrence else None
        data["docs"] = value("docs")
        data["review"] = {
            "written_by": value("written_by") or None,
            "reviewed_at": format_datetime(value("reviewed_at")),
            "reviewed_by": value("reviewed_by") or None,
        }
        data["updated_at"] = format_datetime(value("updated_at"))
        data["url"] = value("source_url") or None
        data["licence"] = value("licence") or None
        for name in (*TERM_LIST_FIELDS, *STEP_LIST_FIELDS, "sources", "related"):
            data[name] = []  # the inlines fill them
        return data

    # --- the inlines -----------------------------------------------------------------------

    @staticmethod
    def rows(formset, *needed):
        """The rows of an inline that stay, in their order, each with the cleaned values it
        needs: deleted rows, extra rows left empty and rows whose own fields failed are
        left out (the last show their own errors)."""
        rows = []
        for index, row in enumerate(formset.forms):
            row.is_valid()  # cleans the row once; its errors are kept
            cleaned = getattr(row, "cleaned_data", {})
            if formset.can_delete and formset._should_delete_form(row):
                continue
            if row in formset.extra_forms and not row.has_changed():
                continue
            if any(cleaned.get(name) is None for name in needed):
                continue
            rows.append((cleaned.get("position") or 0, index, row))
        return [row for _position, _index, row in sorted(rows, key=lambda r: r[:2])]

    def listed(self, formset, list_name, row, field, value):
        index = len(self.data[list_name])
        self.data[list_name].append(value)
        self.places[f"{list_name}[{index}]"] = (row, field)
        self.places.setdefault(list_name, (formset, None))
        return index

    def terms(self, formset):
        list_of = {vocabulary: name for name, vocabulary in LIST_VOCABULARIES.items()}
        for row in self.rows(formset, "term"):
            term = row.cleaned_data["term"]
            if term.vocabulary in list_of:
                self.listed(formset, list_of[term.vocabulary], row, "term", term.slug)

    def steps(self, formset):
        for row in self.rows(formset, "kind"):
            cleaned = row.cleaned_data
            list_name = STEP_LISTS.get(cleaned["kind"])
            if list_name is None:
                continue
            text = {lang: as_typed(cleaned.get(f"text_{lang}")) or "" for lang in LANGUAGES}
            index = self.listed(formset, list_name, row, None, text)
            for language in LANGUAGES:
                self.places[f"{list_name}[{index}].{language}"] = (row, f"text_{language}")

    def sources(self, formset):
        for row in self.rows(formset, "url"):
            cleaned = row.cleaned_data
            source = {
                "url": cleaned["url"],
                "kind": cleaned.get("kind") or None,
                "archived": cleaned.get("archived") or None,
            }
            index = self.listed(formset, "sources", row, None, source)
            for name in ("url", "kind", "archived"):
                self.places[f"sources[{index}].{name}"] = (row, name)

    def related(self, formset):
        for row in self.rows(formset, "to_case"):
            other = row.cleaned_data["to_case"]
            self.listed(formset, "related", row, "to_case", other.public_id)

    # --- the problems, back where they came from ------------------------------------------

    def locate(self, path):
        """(form or formset, field or None, whether the place is the path's own)."""
        exact = True
        while path:
            if path in self.places:
                target, field = self.places[path]
                return target, field, exact
            name = FIELD_OF_PATH.get(path) or path.replace(".", "_")
            if name in self.form.fields:
                return self.form, name, exact
            path, exact = PARENT.sub("", path), False
        return self.form, None, False

    def place(self, problems):
        for problem in problems:
            link = DOCUMENTATION_LINK.fullmatch(problem.path)
            if link and "docs" in self.form.fields:
                self.place_link_problem(int(link[1]), problem.message)
                continue
            target, field, exact = self.locate(problem.path)
            message = problem.message if exact else str(problem)
            if isinstance(target, forms.BaseForm):
                add_once(target, field, message)
            elif message not in target.non_form_errors():
                target.non_form_errors().append(message)

    def place_link_problem(self, index, message):
        """A documentation link's problem: beside its input, and among the field's errors
        with the link's number (the inputs left empty do not count)."""
        self.form.fields["docs"].widget.problems[index] = message
        named = _("link %(number)s: %(problem)s") % {"number": index + 1, "problem": message}
        if named not in self.form.errors.get("docs", []):
            self.form.add_error("docs", named)


def as_typed(value):
    """A text as the editor typed it: browsers send a textarea's line breaks as CRLF (the
    HTML standard says so), which would otherwise be stored, exported and counted as a
    change of every line."""
    return value.replace("\r\n", "\n") if isinstance(value, str) else value


def add_once(form, field, message):
    """Add an error to a form, unless that field already shows one (its own, say "Enter a
    valid date", for which the validator could only add "is required")."""
    if field is not None and field not in form.fields:
        field = None
    shown = form.errors.get(field or NON_FIELD_ERRORS, [])
    if message in shown or (field is not None and shown):
        return
    form.add_error(field, message)
