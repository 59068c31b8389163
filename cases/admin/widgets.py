"""Widgets of the case form that Django has no match for."""

import copy

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from cases.rules import MAX_URL_LENGTH


class LinkListWidget(forms.Widget):
    """A list of links, one `<input type="url">` each, all under one name, in their order.

    It renders each link and two empty inputs, so that two links can be added without a
    script; admin/js/url-list.js keeps one empty input and adds "Add a link" and "Remove"
    buttons. `problems` ({index: message}, set by the form after validation) puts each
    link's problem beside its input.
    """

    use_fieldset = True
    spare_inputs = 2

    class Media:
        js = ["admin/js/url-list.js"]

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self.problems = {}

    def __deepcopy__(self, memo):
        # Each form gets its own widget; its problems must not leak into another form's.
        widget = super().__deepcopy__(memo)
        widget.problems = copy.copy(self.problems)
        return widget

    def format_value(self, value):
        """The links as the form reads them (LinkListField.to_python): blanks left out, so
        that the n-th input shown is the n-th link the validator names."""
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        return [str(link).strip() for link in value if link is not None and str(link).strip()]

    def value_from_datadict(self, data, files, name):
        if hasattr(data, "getlist"):
            return data.getlist(name)
        value = data.get(name)
        return value if isinstance(value, list) else [value] if value else []

    def value_omitted_from_data(self, data, files, name):
        return name not in data

    def id_for_label(self, id_):
        return f"{id_}_0" if id_ else id_

    def render(self, name, value, attrs=None, renderer=None):
        links = self.format_value(value)
        attrs = self.build_attrs(self.attrs, attrs)
        base_id = attrs.pop("id", f"id_{name}")
        items = [
            self.render_item(name, base_id, index, link, spare=index > len(links))
            for index, link in enumerate(links + [""] * self.spare_inputs)
        ]
        return format_html(
            '<div class="url-list" data-add-label="{}" data-remove-label="{}"'
            ' data-link-label="{}" data-name="{}" data-id="{}">'
            '<ol class="url-list-items">{}</ol></div>',
            _("Add a link"),
            _("Remove"),
            _("Link %(number)s"),
            name,
            base_id,
            format_html_join("", "{}", ((item,) for item in items)),
        )

    def render_item(self, name, base_id, index, link, *, spare):
        input_id = f"{base_id}_{index}"
        problem = self.problems.get(index)
        described = ""
        if problem:
            described = format_html(' aria-invalid="true" aria-describedby="{}_problem"', input_id)
        return format_html(
            '<li class="url-list-item{}"><input type="url" name="{}" value="{}" id="{}"'
            ' class="vURLField" aria-label="{}" maxlength="{}"{}>{}</li>',
            " url-list-spare" if spare else "",
            name,
            link,
            input_id,
            _("Link %(number)s") % {"number": index + 1},
            MAX_URL_LENGTH,
            described,
            format_html('<p class="url-list-problem" id="{}_problem">{}</p>', input_id, problem)
            if problem
            else "",
        )
