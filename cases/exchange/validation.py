"""The one validator of the case exchange format (docs/case-format.md).

`validate_case` takes one decoded JSON value and returns the case in its normal form
(every key present, translated text as {"en", "ko"}, durations and datetimes in one
spelling) together with every problem found, each tied to the field path it concerns. The
importer, restore, the admin's case form, the pending-revision writer and the API all call
it; problems are worded in the active language (the editor's in the admin).
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases import rules
from cases.catalogue.vocabularies import LIST_FIELDS_IN_ORDER
from cases.models import Case
from cases.rules import (
    IMPACT_FIELDS,
    LANGUAGES,
    MAX_TITLE_LENGTH,
    TRANSLATED_FIELDS,
    case_id_problem,
    number,
    shown,
)

from .decoding import RepeatedKeys, json_type
from .fields import FieldChecks, shown_key

__all__ = ["validate_case"]

TERM_LIST_FIELDS = LIST_FIELDS_IN_ORDER
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
    + ("related", "recurrence_of", "sources", "docs", "review", "updated_at", "url", "licence")
)
SEVERITIES = tuple(Case.Severity.values)
DATE_KINDS = tuple(Case.DateKind.values)
# A title's length is title_problem's to say, in the words imports have always used.
TEXT_LIMITS = {"title": None}

# (what a value that is no list is told, what a list too long is told): translated only
# when said, for a list is checked in every case and most cases are right.
SLUGS = (
    gettext_lazy("must be a list of slugs, got %(type)s"),
    gettext_lazy("at most %(max)s terms, not %(count)s"),
)
CASE_IDS = (
    gettext_lazy("must be a list of case ids, got %(type)s"),
    gettext_lazy("at most %(max)s cases, not %(count)s"),
)
TEXTS = (
    gettext_lazy("must be a list of texts, got %(type)s"),
    gettext_lazy("at most %(max)s steps, not %(count)s"),
)
SOURCES = (
    gettext_lazy("must be a list of sources, got %(type)s"),
    gettext_lazy("at most %(max)s sources, not %(count)s"),
)
LINKS = (
    gettext_lazy("must be a list of links, got %(type)s"),
    gettext_lazy("at most %(max)s links, not %(count)s"),
)


def title_problem(english, korean):
    if not english.strip() and not korean.strip():
        return _("a title is required in at least one language (en or ko)")
    if len(english) > MAX_TITLE_LENGTH or len(korean) > MAX_TITLE_LENGTH:
        return _("a title may be at most %(max)s characters long") % {"max": MAX_TITLE_LENGTH}
    return None


class CaseValidator(FieldChecks):
    """Checks one case object; collects problems instead of stopping at the first."""

    def __init__(self, raw):
        super().__init__()
        self.raw = raw

    def run(self):
        raw = self.raw
        if not isinstance(raw, dict):
            self.problem(
                "", _("a case must be a JSON object, got %(type)s") % {"type": json_type(raw)}
            )
            return None
        self.repeated_keys("", raw)
        for key in sorted(set(raw) - TOP_LEVEL_FIELDS):
            self.problem(shown_key(key), _("unknown field (the exchange format has no such field)"))

        case = {"id": self.case_id(raw.get("id"))}
        case["org"], case["org_slug"] = self.organisation(raw.get("org"), raw.get("org_slug"))
        case["date"] = self.date(raw.get("date"))
        case["date_kind"] = self.choice("date_kind", raw.get("date_kind"), DATE_KINDS, "occurred")
        for field in TRANSLATED_FIELDS:
            limit = TEXT_LIMITS.get(field, rules.MAX_TEXT_LENGTH)
            case[field] = self.translated(field, raw.get(field), limit, plain_string_ok=False)
        if not any(p.path.startswith("title") for p in self.problems):
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
            self.problem("related", _("a case cannot be related to itself"))
        case["recurrence_of"] = self.optional_case_id("recurrence_of", raw.get("recurrence_of"))
        if case["id"] and case["recurrence_of"] == case["id"]:
            self.problem("recurrence_of", _("a case cannot be a recurrence of itself"))
        case["sources"] = self.sources(raw.get("sources"))
        case["docs"] = self.url_list("docs", raw.get("docs"))
        case["review"] = self.review(raw.get("review"))
        case["updated_at"] = self.datetime("updated_at", raw.get("updated_at"))
        case["url"] = self.url("url", raw.get("url"), required=False)
        # Only when given: a case without one keeps the normal form (and the import
        # fingerprint) it had before the format had the field.
        if (licence := self.licence("licence", raw.get("licence"))) is not None:
            case["licence"] = licence
        return None if self.problems else case

    def problems_at(self, path):
        return any(
            p.path == path or p.path.startswith((f"{path}.", f"{path}[")) for p in self.problems
        )

    def repeated_keys(self, path, value):
        for key in getattr(value, "repeated", ()) if isinstance(value, RepeatedKeys) else ():
            where = f"{path}.{shown_key(key)}" if path else shown_key(key)
            self.problem(where, _("given twice in one object (the second would silently win)"))

    # --- structures --------------------------------------------------------

    def translated(self, path, value, limit, *, plain_string_ok):
        """Translated text: {"en": ..., "ko": ...}; a plain string, where allowed, is English."""
        empty = {"en": "", "ko": ""}
        if value is None:
            return empty
        if isinstance(value, str) and plain_string_ok:
            return {"en": self.string(path, value, required=True, limit=limit) or "", "ko": ""}
        if not isinstance(value, dict):
            if plain_string_ok:
                message = _('must be a string or an object {"en": ..., "ko": ...}, got %(type)s')
            else:
                message = _('must be an object {"en": ..., "ko": ...}, got %(type)s')
            self.problem(path, message % {"type": json_type(value)})
            return empty
        self.repeated_keys(path, value)
        for key in sorted(set(value) - set(LANGUAGES)):
            self.problem(
                f"{path}.{shown_key(key)}", _("unknown language: only en and ko are allowed")
            )
        result = {}
        for language in LANGUAGES:
            text = value.get(language)
            result[language] = (
                ""
                if text is None
                else self.string(f"{path}.{language}", text, required=True, limit=limit) or ""
            )
        return result

    def object(self, path, value, allowed):
        """An optional nested object; returns {} for null and reports unknown keys."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problem(path, _("must be an object, got %(type)s") % {"type": json_type(value)})
            return {}
        self.repeated_keys(path, value)
        for key in sorted(set(value) - set(allowed)):
            self.problem(
                f"{path}.{shown_key(key)}",
                _("unknown field (the exchange format has no such field)"),
            )
        return value

    def list_of(self, path, value, wrong_type, too_many, limit):
        """`wrong_type` and `too_many`: the messages for a value that is no list, and for one
        longer than `limit`."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem(path, str(wrong_type) % {"type": json_type(value)})
            return []
        if len(value) > limit:
            self.problem(path, str(too_many) % {"max": number(limit), "count": number(len(value))})
            return []
        return value

    def impact(self, value):
        value = self.object("impact", value, IMPACT_FIELDS)
        return {
            field: self.translated(
                f"impact.{field}", value.get(field), rules.MAX_IMPACT_LENGTH, plain_string_ok=True
            )
            for field in IMPACT_FIELDS
        }

    def slug_list(self, path, value):
        slugs = []
        items = self.list_of(
            path,
            value,
            *SLUGS,
            rules.MAX_TERMS,
        )
        for index, item in enumerate(items):
            slug = self.slug(f"{path}[{index}]", item)
            if slug is None:
                continue
            if slug in slugs:
                self.problem(
                    f"{path}[{index}]", _("%(value)s is listed twice") % {"value": shown(slug)}
                )
                continue
            slugs.append(slug)
        return slugs

    def optional_case_id(self, path, value):
        value = self.string(path, value, required=False)
        if value is None:
            return None
        if message := case_id_problem(value):
            self.problem(path, message)
            return None
        return value

    def id_list(self, path, value):
        ids = []
        items = self.list_of(
            path,
            value,
            *CASE_IDS,
            rules.MAX_RELATED,
        )
        for index, item in enumerate(items):
            case_id = self.optional_case_id(f"{path}[{index}]", item)
            if item is None:
                self.problem(f"{path}[{index}]", _("must be a case id, got null"))
            if case_id is None:
                continue
            if case_id in ids:
                self.problem(
                    f"{path}[{index}]", _("%(value)s is listed twice") % {"value": case_id}
                )
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
        items = self.list_of(
            path,
            value,
            *TEXTS,
            rules.MAX_STEPS,
        )
        for index, item in enumerate(items):
            where = f"{path}[{index}]"
            step = self.translated(where, item, rules.MAX_STEP_LENGTH, plain_string_ok=True)
            if item is None:
                self.problem(where, _("must be a text, got null"))
            elif not any(step.values()) and not self.problems_at(where):
                self.problem(where, _("is empty in both languages"))
            steps.append(step)
        return steps

    def sources(self, value):
        sources = []
        items = self.list_of(
            "sources",
            value,
            *SOURCES,
            rules.MAX_SOURCES,
        )
        for index, item in enumerate(items):
            item_path = f"sources[{index}]"
            if not isinstance(item, dict):
                self.problem(
                    item_path,
                    _("must be an object with a url, got %(type)s") % {"type": json_type(item)},
                )
                continue
            self.object(item_path, item, SOURCE_FIELDS)
            url = self.url(f"{item_path}.url", item.get("url"), required=True)
            kind = self.optional_slug(
                f"{item_path}.kind", item.get("kind"), rules.MAX_SOURCE_KIND_LENGTH
            )
            archived = self.url(f"{item_path}.archived", item.get("archived"), required=False)
            sources.append({"url": url, "kind": kind, "archived": archived})
        return sources

    def url_list(self, path, value):
        urls = []
        items = self.list_of(
            path,
            value,
            *LINKS,
            rules.MAX_DOCS,
        )
        for index, item in enumerate(items):
            url = self.url(f"{path}[{index}]", item, required=True)
            if url is not None:
                urls.append(url)
        return urls

    def review(self, value):
        value = self.object("review", value, REVIEW_FIELDS)
        written_by, reviewed_by = (
            self.string(
                f"review.{name}", value.get(name), required=False, limit=rules.MAX_NAME_LENGTH
            )
            for name in ("written_by", "reviewed_by")
        )
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
