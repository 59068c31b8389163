"""The checks of single values of a case (strings, ids, slugs, dates, durations, links),
each adding its problem at the value's path: what cases/exchange/validation.py builds the
validator of a whole case from."""

import datetime
import re

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime, parse_duration
from django.utils.text import slugify
from django.utils.translation import gettext as _

from cases import rules
from cases.rules import (
    case_id_problem,
    licence_problem,
    number,
    shown,
    slug_problem,
    url_problem,
)

from .decoding import json_type
from .spelling import Problem, format_datetime, format_duration, parse_duration_for_people

LONGEST_DURATION_TEXT = 40  # `P7300DT23H59M59.999999S` and the like; more is no duration
# `7300 days, 23 hours, 59 minutes, 59.999999 seconds` (51); more is no duration either.
LONGEST_SPOKEN_DURATION = 60

# The one spelling of each, in ASCII digits and matched whole (`\d` would take Arabic-Indic
# digits, `$` a final newline, and Python's ISO reader takes week dates and compact forms):
# what docs/case-format.schema.json writes as its patterns.
DATE_SPELLING = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DATETIME_SPELLING = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.,][0-9]+)?)?"
    r"(?P<zone>Z|[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)?"
)
_NUMBER = r"[0-9]+(?:[.,][0-9]+)?"
_TIME = rf"T(?:{_NUMBER}H(?:{_NUMBER}M)?(?:{_NUMBER}S)?|{_NUMBER}M(?:{_NUMBER}S)?|{_NUMBER}S)"
# PnW, PnD, PTnHnMnS and their combinations, at least one number, and a T only before one.
ISO_DURATION_SPELLING = re.compile(
    rf"-?P(?:{_NUMBER}W(?:{_NUMBER}D)?(?:{_TIME})?|{_NUMBER}D(?:{_TIME})?|{_TIME})"
)


def too_long(length, limit):
    return _("at most %(max)s characters, not %(count)s") % {
        "max": number(limit),
        "count": number(length),
    }


def shown_key(key):
    return key if key.isprintable() and len(key) <= 60 else shown(key)


def iso_duration(value):
    """The importer's reading of an ISO 8601 duration: a timedelta, or None when the text is
    none. OverflowError for more days than a timedelta holds."""
    # Django reads a bare "P" or "PT" as zero, and "P1DT" as a day; ISO 8601 needs a number
    # after each designator.
    if len(value) > LONGEST_DURATION_TEXT or not ISO_DURATION_SPELLING.fullmatch(value):
        return None
    try:
        return parse_duration(value)
    except (OverflowError, ValueError):  # more days than a timedelta holds
        raise OverflowError(value) from None


def spoken_duration(text):
    """Any spelling an editor may type: ISO 8601 (also in lower case), words or a clock."""
    if text.upper().startswith(("P", "-P")):
        return iso_duration(text.upper())
    if len(text) > LONGEST_SPOKEN_DURATION:
        return None
    return parse_duration_for_people(text)


def within_limits(read, value, not_a_duration):
    """(timedelta, None) for a duration `read` finds in `value` within the rules' limits,
    else (None, why not)."""
    try:
        parsed = read(value)
    except OverflowError:
        return None, _("is longer than 20 years")
    if parsed is None:
        return None, not_a_duration
    if parsed < datetime.timedelta(0):
        return None, _("must not be negative")
    if parsed > rules.MAX_DURATION:
        return None, _("is longer than 20 years")
    return parsed, None


def read_iso_duration(value):
    """What the importer reads: ISO 8601 only, the exchange format's one spelling."""
    parsed, problem = within_limits(
        iso_duration,
        value,
        _("%(value)s is not an ISO 8601 duration such as PT3H15M") % {"value": shown(value)},
    )
    if parsed is not None and value.startswith("-"):  # -PT0S: no length has a minus sign
        return None, _("must not be negative")
    return parsed, problem


def read_duration(text):
    """What the admin's form reads: `3h 15m`, `PT3H15M` or `03:15:00` (also `2d 4h`, `45m`,
    `1:30`), as (timedelta, None) or (None, the problem in the importer's words)."""
    text = text.strip()
    return within_limits(
        spoken_duration,
        text,
        _("%(value)s is not a duration such as 3h 15m, PT3H15M or 03:15:00")
        % {"value": shown(text)},
    )


class FieldChecks:
    def __init__(self):
        self.problems: list[Problem] = []

    def problem(self, path, message):
        self.problems.append(Problem(path, message))

    def string(self, path, value, *, required, limit=None):
        if value is None:
            if required:
                self.problem(path, _("is required"))
            return None
        if not isinstance(value, str):
            self.problem(path, _("must be a string, got %(type)s") % {"type": json_type(value)})
            return None
        if limit is not None and len(value) > limit:
            self.problem(path, too_long(len(value), limit))
            return None
        if "\x00" in value:  # which PostgreSQL cannot store
            self.problem(path, _("must not contain a NUL character"))
            return None
        # Half of a surrogate pair, which no encoding can store. (Encoding finds one six
        # times as fast as a regular expression over the texts of 10,000 cases, and an
        # ASCII text needs no looking.)
        if not value.isascii():
            try:
                value.encode()
            except UnicodeEncodeError as error:
                code = f"\\u{ord(value[error.start]):04x}"
                self.problem(
                    path,
                    _("holds an unpaired surrogate (%(code)s), which is not text") % {"code": code},
                )
                return None
        return value

    def case_id(self, value):
        value = self.string("id", value, required=True)
        if value is None:
            return None
        if message := case_id_problem(value):
            self.problem("id", message)
            return None
        return value

    def organisation(self, name, slug):
        name = self.string("org", name, required=True, limit=rules.MAX_NAME_LENGTH)
        if name is not None and not name.strip():
            self.problem("org", _("must not be empty"))
            name = None
        if slug is not None:
            slug = self.slug("org_slug", slug)
        elif name:
            # ASCII only, as every identifier: a name in Hangul alone needs a slug given.
            # slugify keeps underscores, which no slug has ("A_B" would be "a_b").
            derived = re.sub(r"[-_]+", "-", slugify(name))
            slug = derived[: rules.MAX_SLUG_LENGTH].strip("-") or None
            if slug is None:
                self.problem(
                    "org_slug",
                    _("cannot be derived from %(value)s: give one") % {"value": shown(name)},
                )
        return name, slug

    def slug(self, path, value, max_length=rules.MAX_SLUG_LENGTH):
        value = self.string(path, value, required=True)
        if value is None:
            return None
        if message := slug_problem(value, max_length):
            self.problem(path, message)
            return None
        return value

    def optional_slug(self, path, value, max_length=rules.MAX_SLUG_LENGTH):
        return None if value is None else self.slug(path, value, max_length)

    def choice(self, path, value, choices, default):
        if value is None:
            return default
        value = self.string(path, value, required=True)
        if value is None:
            return default
        if value not in choices:
            self.problem(
                path,
                _("%(value)s is not one of %(choices)s")
                % {"value": shown(value), "choices": ", ".join(choices)},
            )
            return default
        return value

    def date(self, value):
        value = self.string("date", value, required=True)
        if value is None:
            return None
        try:
            parsed = parse_date(value) if DATE_SPELLING.fullmatch(value) else None
        except ValueError:
            parsed = None
        if parsed is None:
            self.problem(
                "date",
                _("%(value)s is not a real date in the form YYYY-MM-DD") % {"value": shown(value)},
            )
            return None
        if self.out_of_range("date", value, parsed.year, parsed > rules.latest_allowed_date()):
            return None
        return parsed.isoformat()

    def out_of_range(self, path, value, year, later_than_now):
        if year < rules.EARLIEST_YEAR:
            self.problem(path, _("%(value)s is before 1900") % {"value": shown(value)})
            return True
        if later_than_now:
            self.problem(path, _("%(value)s is in the future") % {"value": shown(value)})
            return True
        return False

    def datetime(self, path, value):
        if value is None:
            return None
        value = self.string(path, value, required=True, limit=40)
        if value is None:
            return None
        spelling = DATETIME_SPELLING.fullmatch(value)
        try:
            parsed = parse_datetime(value) if spelling else None
        except ValueError:
            parsed = None
        if parsed is None:
            self.problem(
                path, _("%(value)s is not an ISO 8601 date and time") % {"value": shown(value)}
            )
            return None
        if not spelling["zone"]:
            self.problem(
                path,
                _("%(value)s has no time zone: add Z or an offset such as +09:00")
                % {"value": shown(value)},
            )
            return None
        # The year first: converting year 9999 or year 1 to UTC may leave the calendar.
        latest = timezone.now() + rules.CLOCK_TOLERANCE
        if self.out_of_range(path, value, parsed.year, parsed.year > latest.year):
            return None
        if self.out_of_range(path, value, parsed.year, parsed > latest):
            return None
        return format_datetime(parsed)

    def duration(self, path, value):
        if value is None:
            return None
        value = self.string(path, value, required=True)
        if value is None:
            return None
        parsed, message = read_iso_duration(value)
        if message:
            self.problem(path, message)
            return None
        return format_duration(parsed)

    def url(self, path, value, *, required):
        value = self.string(path, value, required=required)
        if value is None:
            return None
        if not value.strip():
            if required:
                self.problem(path, _("must not be empty"))
            return None
        if message := url_problem(value):
            self.problem(path, message)
            return None
        return value

    def licence(self, path, value):
        if value is None:
            return None
        value = self.string(path, value, required=True)
        if value is None:
            return None
        if message := licence_problem(value):
            self.problem(path, message)
            return None
        return value
