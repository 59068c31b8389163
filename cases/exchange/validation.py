"""The one validator of the case exchange format (docs/case-format.md).

`validate_case` takes one decoded JSON value and returns the case in its
normal form (every key present, translated text as {"en", "ko"}, durations and
datetimes in one spelling) together with every problem found, each tied to
the field path it concerns. The importer, the admin and the API all call it.
"""

import datetime
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.dateparse import parse_date, parse_datetime, parse_duration
from django.utils.text import slugify

from cases.models import CASE_ID_RE, SLUG_RE, Case

LANGUAGES = ("en", "ko")
TRANSLATED_FIELDS = ("title", "summary", "trigger", "detection", "lessons", "symptoms_text")
IMPACT_FIELDS = ("scope", "users", "region")
TERM_LIST_FIELDS = ("domain", "symptoms", "components", "contributing")
STEP_LIST_FIELDS = ("remediation", "action_items")
TIMELINE_FIELDS = ("detected_after", "resolved_after")
REVIEW_FIELDS = ("written_by", "reviewed_at", "reviewed_by")
SOURCE_FIELDS = ("url", "kind", "archived")
TOP_LEVEL_FIELDS = frozenset(
    ("id", "org", "org_slug", "date", "date_kind", "severity", "root_cause")
    + TRANSLATED_FIELDS
    + ("impact",)
    + TERM_LIST_FIELDS
    + ("timeline",)
    + STEP_LIST_FIELDS
    + ("related", "recurrence_of", "sources", "docs", "review", "updated_at", "url")
)
SEVERITIES = tuple(Case.Severity.values)
DATE_KINDS = tuple(Case.DateKind.values)
MAX_TITLE_LENGTH = Case._meta.get_field("title").max_length
MAX_URL_LENGTH = 1000
HTTP_URL = URLValidator(schemes=["http", "https"])
UNSAFE_URL_CHARACTER = re.compile(r"[\s\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self):
        return f"{self.path}: {self.message}" if self.path else self.message


def type_name(value):
    return {
        str: "a string",
        bool: "true or false",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def format_duration(value: datetime.timedelta | None) -> str | None:
    """ISO 8601 in its shortest spelling: PT3H15M, P2DT4H, PT0S."""
    if value is None:
        return None
    seconds = value.total_seconds()
    sign = "-" if seconds < 0 else ""
    value = abs(value)
    days, rest = value.days, value.seconds
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    micros = value.microseconds
    date_part = f"{days}D" if days else ""
    time_part = ""
    if hours:
        time_part += f"{hours}H"
    if minutes:
        time_part += f"{minutes}M"
    if secs or micros:
        time_part += f"{secs}.{micros:06d}".rstrip("0").rstrip(".") + "S"
    if not date_part and not time_part:
        return "PT0S"
    return f"{sign}P{date_part}" + (f"T{time_part}" if time_part else "")


def format_datetime(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


# --- rules shared with the admin's form and model validators (cases/validators.py) -----


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
    if not CASE_ID_RE.match(value):
        return f"{value!r} is not a case id: expected IL- and at least four digits"
    return None


def title_problem(english, korean):
    if not english.strip() and not korean.strip():
        return "a title is required in at least one language (en or ko)"
    if len(english) > MAX_TITLE_LENGTH or len(korean) > MAX_TITLE_LENGTH:
        return f"a title may be at most {MAX_TITLE_LENGTH} characters long"
    return None


class CaseValidator:
    """Checks one case object; collects problems instead of stopping at the first."""

    def __init__(self, raw):
        self.raw = raw
        self.problems: list[Problem] = []

    def problem(self, path, message):
        self.problems.append(Problem(path, message))

    def run(self):
        raw = self.raw
        if not isinstance(raw, dict):
            self.problem("", f"a case must be a JSON object, got {type_name(raw)}")
            return None
        for key in sorted(set(raw) - TOP_LEVEL_FIELDS):
            self.problem(key, "unknown field (the exchange format has no such field)")

        case = {"id": self.case_id(raw.get("id"))}
        case["org"], case["org_slug"] = self.organisation(raw.get("org"), raw.get("org_slug"))
        case["date"] = self.date(raw.get("date"))
        case["date_kind"] = self.choice("date_kind", raw.get("date_kind"), DATE_KINDS, "occurred")
        for field in TRANSLATED_FIELDS:
            case[field] = self.translated(field, raw.get(field), plain_string_ok=False)
        if "title" not in {p.path for p in self.problems}:
            message = title_problem(case["title"]["en"], case["title"]["ko"])
            if message:
                self.problem("title", message)
        case["impact"] = self.impact(raw.get("impact"))
        case["severity"] = self.choice("severity", raw.get("severity"), SEVERITIES, "unknown")
        for field in TERM_LIST_FIELDS:
            case[field] = self.slug_list(field, raw.get(field))
        case["root_cause"] = self.optional_slug("root_cause", raw.get("root_cause"))
        case["timeline"] = self.timeline(raw.get("timeline"))
        for field in STEP_LIST_FIELDS:
            case[field] = self.step_list(field, raw.get(field))
        case["related"] = self.id_list("related", raw.get("related"))
        if case["id"] and case["id"] in case["related"]:
            self.problem("related", "a case cannot be related to itself")
        case["recurrence_of"] = self.optional_case_id("recurrence_of", raw.get("recurrence_of"))
        if case["id"] and case["recurrence_of"] == case["id"]:
            self.problem("recurrence_of", "a case cannot be a recurrence of itself")
        case["sources"] = self.sources(raw.get("sources"))
        case["docs"] = self.url_list("docs", raw.get("docs"))
        case["review"] = self.review(raw.get("review"))
        case["updated_at"] = self.datetime("updated_at", raw.get("updated_at"))
        case["url"] = self.url("url", raw.get("url"), required=False)
        return None if self.problems else case

    # --- scalars ---------------------------------------------------------

    def string(self, path, value, *, required):
        if value is None:
            if required:
                self.problem(path, "is required")
            return None
        if not isinstance(value, str):
            self.problem(path, f"must be a string, got {type_name(value)}")
            return None
        if "\x00" in value:
            self.problem(path, "must not contain a NUL character")
            return None
        return value

    def case_id(self, value):
        value = self.string("id", value, required=True)
        if value is None:
            return None
        message = case_id_problem(value)
        if message:
            self.problem("id", message)
            return None
        return value

    def organisation(self, name, slug):
        name = self.string("org", name, required=True)
        if name is not None and not name.strip():
            self.problem("org", "must not be empty")
            name = None
        if slug is not None:
            slug = self.slug("org_slug", slug)
        elif name:
            slug = slugify(name, allow_unicode=True) or None
            if slug is None:
                self.problem("org_slug", f"cannot be derived from {name!r}: give one")
        return name, slug

    def slug(self, path, value):
        value = self.string(path, value, required=True)
        if value is None:
            return None
        if not SLUG_RE.match(value):
            self.problem(
                path, f"{value!r} is not a slug: use lowercase letters, digits and single hyphens"
            )
            return None
        return value

    def optional_slug(self, path, value):
        return None if value is None else self.slug(path, value)

    def choice(self, path, value, choices, default):
        if value is None:
            return default
        value = self.string(path, value, required=True)
        if value is None:
            return default
        if value not in choices:
            self.problem(path, f"{value!r} is not one of {', '.join(choices)}")
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
            self.problem("date", f"{value!r} is not a real date in the form YYYY-MM-DD")
            return None
        return parsed.isoformat()

    def datetime(self, path, value):
        if value is None:
            return None
        value = self.string(path, value, required=True)
        if value is None:
            return None
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None:
            self.problem(path, f"{value!r} is not an ISO 8601 date and time")
            return None
        if parsed.tzinfo is None:
            self.problem(path, f"{value!r} has no time zone: add Z or an offset such as +09:00")
            return None
        return format_datetime(parsed)

    def duration(self, path, value):
        if value is None:
            return None
        value = self.string(path, value, required=True)
        if value is None:
            return None
        # Django reads a bare "P" or "PT" as zero; ISO 8601 needs at least one number.
        is_iso = value.startswith(("P", "-P")) and any(c.isdigit() for c in value)
        parsed = parse_duration(value) if is_iso else None
        if parsed is None:
            self.problem(path, f"{value!r} is not an ISO 8601 duration such as PT3H15M")
            return None
        if parsed < datetime.timedelta(0):
            self.problem(path, "must not be negative")
            return None
        return format_duration(parsed)

    def url(self, path, value, *, required):
        value = self.string(path, value, required=required)
        if value is None:
            return None
        if not value.strip():
            if required:
                self.problem(path, "must not be empty")
            return None
        message = url_problem(value)
        if message:
            self.problem(path, message)
            return None
        return value

    # --- structures --------------------------------------------------------

    def translated(self, path, value, *, plain_string_ok):
        """Translated text: {"en": ..., "ko": ...}; a plain string, where allowed, is English."""
        empty = {"en": "", "ko": ""}
        if value is None:
            return empty
        if isinstance(value, str) and plain_string_ok:
            return {"en": self.string(path, value, required=True) or "", "ko": ""}
        if not isinstance(value, dict):
            expected = (
                'a string or an object {"en": ..., "ko": ...}'
                if plain_string_ok
                else ('an object {"en": ..., "ko": ...}')
            )
            self.problem(path, f"must be {expected}, got {type_name(value)}")
            return empty
        for key in sorted(set(value) - set(LANGUAGES)):
            self.problem(f"{path}.{key}", "unknown language: only en and ko are allowed")
        result = {}
        for language in LANGUAGES:
            text = value.get(language)
            result[language] = (
                "" if text is None else self.string(f"{path}.{language}", text, required=True) or ""
            )
        return result

    def object(self, path, value, allowed):
        """An optional nested object; returns {} for null and reports unknown keys."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(path, f"must be an object, got {type_name(value)}")
            return {}
        for key in sorted(set(value) - set(allowed)):
            self.problem(f"{path}.{key}", "unknown field (the exchange format has no such field)")
        return value

    def list_of(self, path, value, noun):
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem(path, f"must be a list of {noun}, got {type_name(value)}")
            return []
        return value

    def impact(self, value):
        value = self.object("impact", value, IMPACT_FIELDS)
        return {
            field: self.translated(f"impact.{field}", value.get(field), plain_string_ok=True)
            for field in IMPACT_FIELDS
        }

    def slug_list(self, path, value):
        slugs = []
        for index, item in enumerate(self.list_of(path, value, "slugs")):
            slug = self.slug(f"{path}[{index}]", item)
            if slug is None:
                continue
            if slug in slugs:
                self.problem(f"{path}[{index}]", f"{slug!r} is listed twice")
                continue
            slugs.append(slug)
        return slugs

    def optional_case_id(self, path, value):
        value = self.string(path, value, required=False)
        if value is None:
            return None
        if not CASE_ID_RE.match(value):
            self.problem(path, f"{value!r} is not a case id: expected IL- and at least four digits")
            return None
        return value

    def id_list(self, path, value):
        ids = []
        for index, item in enumerate(self.list_of(path, value, "case ids")):
            case_id = self.optional_case_id(f"{path}[{index}]", item)
            if item is None:
                self.problem(f"{path}[{index}]", "must be a case id, got null")
            if case_id is None:
                continue
            if case_id in ids:
                self.problem(f"{path}[{index}]", f"{case_id} is listed twice")
                continue
            ids.append(case_id)
        return ids

    def timeline(self, value):
        value = self.object("timeline", value, TIMELINE_FIELDS)
        return {
            field: self.duration(f"timeline.{field}", value.get(field)) for field in TIMELINE_FIELDS
        }

    def step_list(self, path, value):
        steps = []
        for index, item in enumerate(self.list_of(path, value, "texts")):
            step = self.translated(f"{path}[{index}]", item, plain_string_ok=True)
            if not any(step.values()) and item is not None:
                self.problem(f"{path}[{index}]", "is empty in both languages")
            elif item is None:
                self.problem(f"{path}[{index}]", "must be a text, got null")
            steps.append(step)
        return steps

    def sources(self, value):
        sources = []
        for index, item in enumerate(self.list_of("sources", value, "sources")):
            item_path = f"sources[{index}]"
            if not isinstance(item, dict):
                self.problem(item_path, f"must be an object with a url, got {type_name(item)}")
                continue
            self.object(item_path, item, SOURCE_FIELDS)
            url = self.url(f"{item_path}.url", item.get("url"), required=True)
            kind = self.optional_slug(f"{item_path}.kind", item.get("kind"))
            archived = self.url(f"{item_path}.archived", item.get("archived"), required=False)
            sources.append({"url": url, "kind": kind, "archived": archived})
        return sources

    def url_list(self, path, value):
        urls = []
        for index, item in enumerate(self.list_of(path, value, "links")):
            url = self.url(f"{path}[{index}]", item, required=True)
            if url is not None:
                urls.append(url)
        return urls

    def review(self, value):
        value = self.object("review", value, REVIEW_FIELDS)
        written_by = self.string("review.written_by", value.get("written_by"), required=False)
        reviewed_by = self.string("review.reviewed_by", value.get("reviewed_by"), required=False)
        return {
            "written_by": written_by or None,
            "reviewed_at": self.datetime("review.reviewed_at", value.get("reviewed_at")),
            "reviewed_by": reviewed_by or None,
        }


def validate_case(raw):
    """Return (normal form or None, problems) for one decoded case object."""
    validator = CaseValidator(raw)
    case = validator.run()
    return case, validator.problems
