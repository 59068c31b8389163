"""Django validators for model fields, built on the library's rules (cases/rules.py).

The exchange format's validator calls the same rule functions, so a value the admin's
model validation refuses is refused by the importer with the same words. (Migrations name
these classes: keep their names and paths.)
"""

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext as _

from cases.rules import (
    MAX_SLUG_LENGTH,
    case_id_problem,
    licence_problem,
    slug_problem,
    url_problem,
)


@deconstructible
class HttpUrlValidator:
    def __call__(self, value):
        if value and (message := url_problem(value)):
            raise ValidationError(message, code="invalid_url")

    def __eq__(self, other):
        return isinstance(other, HttpUrlValidator)


@deconstructible
class LicenceValidator:
    def __call__(self, value):
        if value and (message := licence_problem(value)):
            raise ValidationError(message, code="invalid_licence")

    def __eq__(self, other):
        return isinstance(other, LicenceValidator)


@deconstructible
class CaseIdValidator:
    def __call__(self, value):
        if message := case_id_problem(value):
            raise ValidationError(message, code="invalid_case_id")

    def __eq__(self, other):
        return isinstance(other, CaseIdValidator)


@deconstructible
class SlugValidator:
    """ASCII slugs, matched whole: Django's own validate_slug takes capitals and underscores."""

    def __init__(self, max_length=MAX_SLUG_LENGTH):
        self.max_length = max_length

    def __call__(self, value):
        if value and (message := slug_problem(value, self.max_length)):
            raise ValidationError(message, code="invalid_slug")

    def __eq__(self, other):
        return isinstance(other, SlugValidator) and other.max_length == self.max_length


@deconstructible
class HttpUrlListValidator:
    def __call__(self, value):
        if not isinstance(value, list):
            raise ValidationError(_("must be a list of links"), code="invalid_list")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ValidationError(f"[{index}]: " + _("must be a link"), code="invalid_url")
            if message := url_problem(item):
                raise ValidationError(f"[{index}]: {message}", code="invalid_url")

    def __eq__(self, other):
        return isinstance(other, HttpUrlListValidator)
