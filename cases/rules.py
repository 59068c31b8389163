"""The library's rules that every part shares: identifiers, languages, the translated
fields, and the limits of a case (docs/case-format.md, "Limits").

Imports no models: the models' own validators are built on these, and so is the exchange
format's validator, so neither needs the other to know what a valid id or link is.
"""

import datetime
import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

# --- identifiers ------------------------------------------------------------------------

# ASCII only, and matched against the whole string (fullmatch): `\d` would take Arabic-Indic
# and full-width digits, and `$` a final newline, which no URL of the site can carry.
CASE_ID_PATTERN = r"IL-[0-9]{4,}"
SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
CASE_ID_RE = re.compile(CASE_ID_PATTERN)
SLUG_RE = re.compile(SLUG_PATTERN)
# The same rules as the database states them in its check constraints (POSIX regular
# expressions on PostgreSQL, Python's on SQLite: both read these alike).
CASE_ID_SQL_PATTERN = rf"^{CASE_ID_PATTERN}\Z"
SLUG_SQL_PATTERN = rf"^{SLUG_PATTERN}\Z"
MAX_CASE_ID_LENGTH = 20
MAX_SLUG_LENGTH = 100


def is_case_id(value):
    return (
        isinstance(value, str)
        and len(value) <= MAX_CASE_ID_LENGTH
        and CASE_ID_RE.fullmatch(value) is not None
    )


def is_slug(value, max_length=MAX_SLUG_LENGTH):
    return (
        isinstance(value, str) and len(value) <= max_length and SLUG_RE.fullmatch(value) is not None
    )


# --- languages and translated fields ----------------------------------------------------

LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)
DEFAULT_LANGUAGE = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
# The case's narrative texts, each translated: `title_en`, `title_ko`, ...
TRANSLATED_FIELDS = ("title", "summary", "trigger", "detection", "lessons", "symptoms_text")
IMPACT_FIELDS = ("scope", "users", "region")
# Every translated column of a case whose Korean can fall behind its English.
TRACKED_FIELDS = TRANSLATED_FIELDS + tuple(f"impact_{field}" for field in IMPACT_FIELDS)
# Impact values such as "unknown" need no translation; the narrative texts do.
REQUIRED_TRANSLATIONS = TRANSLATED_FIELDS

# --- limits -----------------------------------------------------------------------------
# Far beyond any real case (IL-0585, a long one, is 9 kB with 14 steps and 7 terms a list),
# and small enough that one case never costs a worker more than a few megabytes.

MAX_TITLE_LENGTH = 500
MAX_TEXT_LENGTH = 50_000  # a summary, trigger, lessons, ... in one language
MAX_STEP_LENGTH = 5_000  # one remediation step or follow-up action, in one language
MAX_SHORT_TEXT_LENGTH = 200  # an organisation's name, `written_by`, `reviewed_by`
MAX_IMPACT_LENGTH = 5_000
MAX_STEPS = 200  # remediation steps, and follow-up actions, each
MAX_TERMS = 50  # slugs in one vocabulary's list
MAX_SOURCES = 50
MAX_DOCS = 50
MAX_RELATED = 100
MAX_URL_LENGTH = 1000
# A case's JSON (a JSON Lines line, an item of an array, a file of one case), in bytes:
# what one case may cost to read, whatever the size of its file.
MAX_CASE_BYTES = 2 * 1024 * 1024
# How deep the format nests: a case, a list of sources, a source, its text.
MAX_DEPTH = 3
# Durations and dates a report can have: no incident is detected twenty years late, and
# none happened before there were computers to fail.
MAX_DURATION = datetime.timedelta(days=20 * 365)
EARLIEST_DATE = datetime.date(1900, 1, 1)
# A date or time may be this far ahead of the server's clock (time zones, a clock off).
CLOCK_TOLERANCE = datetime.timedelta(days=1)

# --- links ------------------------------------------------------------------------------

HTTP_URL = URLValidator(schemes=["http", "https"])
UNSAFE_URL_CHARACTER = re.compile(r"[\s\x00-\x1f\x7f]")


def url_problem(value):
    """Why a link may not be stored, or None. Only http and https, never javascript: or data:."""
    lowered = value.strip().lower()
    if not (lowered.startswith("http://") or lowered.startswith("https://")):
        return "only http and https links are allowed"
    if len(value) > MAX_URL_LENGTH:
        return f"a link may be at most {MAX_URL_LENGTH} characters long"
    if UNSAFE_URL_CHARACTER.search(value) or len(value) <= len("https://"):
        return f"{value!r} is not a valid link"
    try:
        HTTP_URL(value)
    except ValidationError:
        return f"{value!r} is not a valid link"
    return None


def case_id_problem(value):
    if not is_case_id(value):
        return f"{value!r} is not a case id: expected IL- and at least four digits (0-9)"
    return None


def slug_problem(value, max_length=MAX_SLUG_LENGTH):
    if not is_slug(value, max_length):
        return (
            f"{value!r} is not a slug: use lowercase letters a-z, digits 0-9 and single hyphens"
            + (f", at most {max_length} characters" if len(value) > max_length else "")
        )
    return None
