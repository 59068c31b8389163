"""Decoding JSON as the case format needs it: nothing lost without a word.

Python's json module keeps the last of two equal keys, reads NaN and Infinity, which JSON
has not, and refuses an integer of more than 4,300 digits with a ValueError of its own.
The decoder here keeps what it read so that the validator can name each of these at its
field: an object with a repeated key remembers which keys, a non-number stays a marker,
and a very long number is a number too long to convert. A document nested deeper than
Python can recurse raises RecursionError, which the reader turns into a problem.
"""

import json

# No field of the format is a number, so a number of any length is a problem; only its
# conversion must not fail. Longer than this, it is not converted at all.
LONGEST_NUMBER = 100


class RepeatedKeys(dict):
    """An object in which some key appeared more than once (the last value kept)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        seen, repeated = set(), []
        for key, _value in pairs:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        self.repeated = repeated


class NotANumber(float):
    """NaN, Infinity or -Infinity, as written."""

    def __new__(cls, spelling):
        value = super().__new__(cls, spelling)
        value.spelling = spelling
        return value


class LongNumber(int):
    """An integer too long to convert: kept as 0, with its length."""

    def __new__(cls, digits):
        value = super().__new__(cls, 0)
        value.digits = len(digits)
        return value


def object_from_pairs(pairs):
    value = dict(pairs)
    return value if len(value) == len(pairs) else RepeatedKeys(pairs)


def integer(text):
    return int(text) if len(text) <= LONGEST_NUMBER else LongNumber(text)


decoder = json.JSONDecoder(
    object_pairs_hook=object_from_pairs, parse_constant=NotANumber, parse_int=integer
)


def loads(text):
    return decoder.decode(text)


def json_type(value):
    """How a message names the type of a decoded value."""
    from django.utils.translation import gettext as _

    if isinstance(value, NotANumber):
        return _("%(value)s, which JSON does not allow") % {"value": value.spelling}
    if isinstance(value, bool):
        return _("true or false")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, int | float):
        return _("a number")
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("an object")
    if value is None:
        return "null"
    return type(value).__name__
