"""The case form's layout: the id it proposes, and which of its sections start open.

Every named section folds (Django renders a fieldset or an inline with the `collapse` class
as <details>). A folded section hides nothing an editor must see: one holding a problem is
not folded at all, and one holding something (or marked `start-open`, as the story is)
starts open — admin/js/case-form.js opens those, since Django's <details> has no `open`.
"""

from django.contrib.admin.utils import flatten

from cases.editorial.ids import propose_case_id

COLLAPSE, START_OPEN = "collapse", "start-open"


def is_blank(value):
    if isinstance(value, list | tuple):  # documentation links: the inputs left empty
        return all(is_blank(item) for item in value)
    return value is None or not str(value).strip()


def holds_something(form, names):
    return any(name in form.fields and not is_blank(form[name].value()) for name in names)


def has_problem(form, names):
    return any(name in form.errors for name in names)


def laid_out(form, fieldsets):
    """The fieldsets with their classes for this form: unfolded where a field has a problem
    (Django's own check misses the fields of a row of two), open where a field holds a
    value."""
    sections = []
    for name, options in fieldsets:
        classes = list(options.get("classes", ()))
        names = flatten(options["fields"])
        if COLLAPSE in classes and has_problem(form, names):
            classes.remove(COLLAPSE)
        elif COLLAPSE in classes and START_OPEN not in classes and holds_something(form, names):
            classes.append(START_OPEN)
        sections.append((name, {**options, "classes": classes}))
    return sections


class CaseFormLayout:
    """Mixed into CaseAdmin: the proposed id of a new case, and its sections' folding."""

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("public_id", propose_case_id())
        return initial

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:  # a new case has no review metadata yet: nothing to show but dashes
            shown_only = set(self.get_readonly_fields(request, obj))
            fieldsets = [
                (name, options)
                for name, options in fieldsets
                if not set(flatten(options["fields"])) <= shown_only
            ]
        return fieldsets

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        adminform = context.get("adminform")
        if adminform is not None:
            adminform.fieldsets = laid_out(adminform.form, adminform.fieldsets)
        for inline in context.get("inline_admin_formsets", ()):
            formset = inline.formset
            if formset.non_form_errors() or any(formset.errors):
                inline.is_collapsible = False  # Django's check misses the inline's own errors
            elif formset.forms:
                inline.classes = f"{inline.classes} {START_OPEN}"
        return super().render_change_form(request, context, add, change, form_url, obj)
