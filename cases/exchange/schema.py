"""The exchange format as a JSON Schema (docs/case-format.schema.json), for other people's
tools: the API serves it, and tests/exchange/test_case_schema.py keeps it equal to the one
validator (cases/exchange/validation.py), which stays what the library itself applies. The
rules JSON Schema cannot say are listed in the schema's description."""

import functools
import json

from django.conf import settings
from jsonschema import Draft202012Validator

from cases.rules import shown

SCHEMA_PATH = settings.BASE_DIR / "docs" / "case-format.schema.json"
# Keywords whose own message quotes the schema (a pattern of a few hundred characters):
# said with the description of the schema they belong to instead.
DESCRIBED_KEYWORDS = frozenset(("pattern", "not", "format"))


@functools.cache
def case_schema():
    """The schema of one case, parsed (read once a process)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def case_schema_validator():
    # Format checking: `date` is checked as a calendar date (the pattern says so too).
    return Draft202012Validator(case_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def field_path(error):
    """`sources[0].url`, as the validator names a field."""
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def described(error):
    description = error.schema.get("description")
    if not description:
        return error.message
    return f"{shown(error.instance)} does not fit: {description}"


def said(error):
    if error.context:  # anyOf: the one alternative of the value's type, else the whole rule
        near = [alternative for alternative in error.context if alternative.validator != "type"]
        return said(near[0]) if len(near) == 1 else described(error)
    if error.validator in DESCRIBED_KEYWORDS:
        return described(error)
    return error.message


def schema_errors(data):
    """Why `data` (one decoded case) fails the schema, a line each as `path: message`
    (sorted by path); [] when it passes."""
    errors = sorted(case_schema_validator().iter_errors(data), key=field_path)
    lines = (f"{field_path(error) or '(case)'}: {said(error)}" for error in errors)
    return list(dict.fromkeys(lines))  # a date both of the wrong pattern and format: once
