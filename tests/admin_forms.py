"""Submitting admin change forms as a browser would: the data the form was shown with."""


def field_value(bound):
    value = bound.value()  # already prepared for display, as the widget renders it
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return str(value)


def form_fields(form):
    data = {}
    for name in form.fields:
        if name == "DELETE":
            continue
        bound = form[name]
        value = field_value(bound)
        if isinstance(value, list):
            data[bound.html_name] = value
        elif getattr(bound.field.widget, "input_type", None) == "checkbox":
            if bound.value():
                data[bound.html_name] = "on"
        else:
            data[bound.html_name] = value
    return data


def change_form_data(response, **changes):
    """POST data for an admin change form from its GET response, with `changes` applied."""
    context = response.context
    data = form_fields(context["adminform"].form)
    for inline in context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = str(management[name].value() or 0)
        for form in formset.initial_forms:
            data.update(form_fields(form))
    data.update(changes)
    data["_save"] = "Save"
    return data


def add_inline_row(data, prefix, **fields):
    """Add one new row to an inline of POST data from change_form_data (`prefix`: "steps",
    "sources", "case_terms", "outgoing_relations"); return the row's index."""
    index = int(data[f"{prefix}-TOTAL_FORMS"])
    data[f"{prefix}-TOTAL_FORMS"] = str(index + 1)
    for name, value in fields.items():
        data[f"{prefix}-{index}-{name}"] = str(value)
    return index


def form_errors(response):
    """Every error the admin showed: {"field": [...]} for the case form, {"prefix-N-field":
    [...]} for an inline's rows, {"prefix": [...]} for an inline as a whole."""
    errors = {}
    form = response.context["adminform"].form
    for name, messages in form.errors.items():
        errors[name] = list(messages)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        if formset.non_form_errors():
            errors[formset.prefix] = list(formset.non_form_errors())
        for index, row in enumerate(formset.forms):
            for name, messages in row.errors.items():
                errors[f"{formset.prefix}-{index}-{name}"] = list(messages)
    return errors


def edit_in_admin(case, user, **changes):
    """Save the case in the admin as `user`, with these fields of its form changed."""
    from django.test import Client
    from django.urls import reverse

    client = Client()
    client.force_login(user)
    url = reverse("admin:cases_case_change", args=[case.pk])
    response = client.post(url, change_form_data(client.get(url), **changes))
    assert response.status_code == 302, form_errors(response)
