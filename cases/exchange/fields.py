"""The checks of single values of a case (strings, ids, slugs, dates, durations, links),
each adding its problem at the value's path: what cases/exchange/validation.py builds the
validator of a whole case from."""

import datetime

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime, parse_duration
from django.utils.text import slugify
from django.utils.translation import gettext as _

from cases import rules
from cases.rules import case_id_problem, number, shown, slug_problem, url_problem

from .decoding import json_type
from .spelling import Problem, format_datetime, format_duration, parse_duration_for_people

LONGEST_DURATION_TEXT = 40  # `P7300DT23H59M59.999999S` and the like; more is no duration
# `7300 days, 23 hours, 59 minutes, 59.999999 seconds` (51); more is no duration either.
LONGEST_SPOKEN_DURATION = 60


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
    # Django reads a bare "P" or "PT" as zero; ISO 8601 needs at least one number.
    is_iso = value.startswith(("P", "-P")) and any(c.isdigit() for c in value)
    if not is_iso or len(value) > LONGEST_DURATION_TEXT:
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
    return within_limits(
        iso_duration,
        value,
        _("%(value)s is not an ISO 8601 duration such as PT3H15M") % {"value": shown(value)},
    )


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
            slug = slugify(name)[: rules.MAX_SLUG_LENGTH].strip("-") or None
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
            parsed = parse_date(value) if len(value) == 10 else None
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
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None:
            self.problem(
                path, _("%(value)s is not an ISO 8601 date and time") % {"value": shown(value)}
            )
            return None
        if parsed.tzinfo is None:
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
