"""Django validators for the admin, built on the exchange format's own rules.

The importer and the admin refuse the same things with the same words, because both call
the rule functions in cases/exchange/validation.py.
"""

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible


def url_problem(value):
    from .exchange.validation import url_problem  # the models load before the validator

    return url_problem(value)


def case_id_problem(value):
    from .exchange.validation import case_id_problem

    return case_id_problem(value)


@deconstructible
class HttpUrlValidator:
    def __call__(self, value):
        if value and (message := url_problem(value)):
            raise ValidationError(message, code="invalid_url")

    def __eq__(self, other):
        return isinstance(other, HttpUrlValidator)


@deconstructible
class CaseIdValidator:
    def __call__(self, value):
        if message := case_id_problem(value):
            raise ValidationError(message, code="invalid_case_id")

    def __eq__(self, other):
        return isinstance(other, CaseIdValidator)


@deconstructible
class HttpUrlListValidator:
    def __call__(self, value):
        if not isinstance(value, list):
            raise ValidationError("must be a list of links", code="invalid_list")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ValidationError(f"[{index}]: must be a link", code="invalid_url")
            if message := url_problem(item):
                raise ValidationError(f"[{index}]: {message}", code="invalid_url")

    def __eq__(self, other):
        return isinstance(other, HttpUrlListValidator)
