"""The library's rules that every part shares: identifiers, languages, the translated
fields, and the limits of a case (docs/case-format.md, "Limits").

Imports no models: the models' own validators and the database's check constraints are
built on these, and so is the exchange format's validator, so neither needs the other to
know what a valid id or link is. Messages are translated where they are made, into the
language of whoever reads them (the editor's in the admin, English on the command line).
"""

import datetime
import re
import unicodedata

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext as _

# --- identifiers ------------------------------------------------------------------------

# ASCII only, and matched against the whole string: `\d` takes Arabic-Indic and full-width
# digits, and `$` a final newline, none of which a URL of the site can carry.
# (The URL converter takes CASE_ID_PATTERN; the database's check constraints the anchored
# forms, which PostgreSQL's regular expressions and Python's, for SQLite, read alike.)
CASE_ID_PATTERN = r"IL-[0-9]{4,}"
SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
CASE_ID_SQL_PATTERN = rf"^{CASE_ID_PATTERN}\Z"
SLUG_SQL_PATTERN = rf"^{SLUG_PATTERN}\Z"
# Anchored at both ends, so that `.match` is as safe as `.fullmatch`.
CASE_ID_RE = re.compile(CASE_ID_SQL_PATTERN)
SLUG_RE = re.compile(SLUG_SQL_PATTERN)
MAX_CASE_ID_LENGTH = 20
MAX_SLUG_LENGTH = 100
MAX_SOURCE_KIND_LENGTH = 50


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
# Far beyond any real case (IL-0585, a long one, is 9 kB with 7 terms a list at the most),
# and small enough that one case never costs a worker more than a few megabytes.

MAX_TITLE_LENGTH = 500
MAX_TEXT_LENGTH = 50_000  # a summary, trigger, lessons, ... in one language
MAX_IMPACT_LENGTH = 5_000  # an impact's scope, users or region, in one language
MAX_STEP_LENGTH = 5_000  # one remediation step or follow-up action, in one language
MAX_NAME_LENGTH = 200  # an organisation's name, `written_by`, `reviewed_by`
MAX_STEPS = 200  # remediation steps; and follow-up actions
MAX_TERMS = 50  # slugs in one vocabulary's list
MAX_SOURCES = 50
MAX_DOCS = 50
MAX_RELATED = 100
MAX_URL_LENGTH = 1000
MAX_LICENCE_LENGTH = 100  # an SPDX licence identifier; the longest listed is 40 characters
MAX_QUESTION_LENGTH = 300  # a term's question ("Check your own system"), in each language
# A case's JSON (a JSON Lines line, an item of an array, a file of one case), in bytes:
# what reading one case may cost, whatever the size of its file.
MAX_CASE_BYTES = 2 * 1024 * 1024
MAX_CASE_SIZE_LABEL = "2 MiB"
# No incident is detected or resolved twenty years late, and none happened before 1900.
MAX_DURATION = datetime.timedelta(days=20 * 365)
EARLIEST_YEAR = 1900
# A date or time may be this far ahead of the server's clock (time zones, a clock off).
CLOCK_TOLERANCE = datetime.timedelta(days=1)


def name_key(text):
    """A name as an import compares it with the names it knows (an organisation's, a
    term's): its letters and digits in any script, casefolded, after NFKC (so full-width
    letters meet their plain forms). "Gitlab" is "GitLab", "config-change" "Config change"."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return "".join(char for char in folded if char.isalnum())


def latest_allowed_date():
    return datetime.date.today() + CLOCK_TOLERANCE


# --- the rules as messages ---------------------------------------------------------------


def shown(value, limit=60):
    """A value as a message quotes it: its repr (so a newline or a surrogate is visible),
    cut to `limit` characters."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "…"
    return repr(value)


def number(value):
    return f"{value:,}"


HTTP_URL = URLValidator(schemes=["http", "https"])
UNSAFE_URL_CHARACTER = re.compile(r"[\s\x00-\x1f\x7f]")


def url_problem(value):
    """Why a link may not be stored, or None. Only http and https, never javascript: or data:."""
    lowered = value.strip().lower()
    if not (lowered.startswith("http://") or lowered.startswith("https://")):
        return _("only http and https links are allowed")
    if len(value) > MAX_URL_LENGTH:
        return _("a link may be at most %(max)s characters long") % {"max": MAX_URL_LENGTH}
    if UNSAFE_URL_CHARACTER.search(value) or len(value) <= len("https://"):
        return _("%(value)s is not a valid link") % {"value": shown(value)}
    try:
        HTTP_URL(value)
    except ValidationError:
        return _("%(value)s is not a valid link") % {"value": shown(value)}
    return None


# An SPDX licence identifier (https://spdx.org/licenses/), as `CC-BY-SA-4.0` or
# `LicenseRef-...`: one identifier, not an expression. Its spelling is checked, not the list.
LICENCE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+-]*\Z")


def licence_problem(value):
    """Why a licence identifier may not be stored, or None."""
    if len(value) > MAX_LICENCE_LENGTH:
        return _("a licence identifier may be at most %(max)s characters long") % {
            "max": MAX_LICENCE_LENGTH
        }
    if not LICENCE_RE.match(value):
        return _(
            "%(value)s is not an SPDX licence identifier (such as CC-BY-SA-4.0): "
            "ASCII letters, digits, dots, hyphens and +"
        ) % {"value": shown(value)}
    return None


def case_id_problem(value):
    if not is_case_id(value):
        return _("%(value)s is not a case id: expected IL- and at least four digits (0-9)") % {
            "value": shown(value)
        }
    return None


def slug_problem(value, max_length=MAX_SLUG_LENGTH):
    if len(value) > max_length:
        return _("a slug may be at most %(max)s characters long") % {"max": max_length}
    if not is_slug(value, max_length):
        return _(
            "%(value)s is not a slug: use lowercase letters a-z, digits 0-9 and single hyphens"
        ) % {"value": shown(value)}
    return None
