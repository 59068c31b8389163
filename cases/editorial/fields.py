"""The parts of a case an editor sees, named by their path in the exchange format
(docs/case-format.md), in one language where the part is translated: `title.en`,
`impact.scope.ko`, `remediation[2].ko`, `sources`, `timeline.detected_after`. Each has a
label in the reader's language ("Trigger, Korean"; "Remediation step 3, Korean").

Comments name the field they are about by such a path (cases.editorial.comments), and a
merge of two saves names the parts it asks about by one (cases.editorial.merging).
"""

import re
from typing import NamedTuple

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.models import CaseStep

MAX_PATH_LENGTH = 100  # CaseComment.field_path

LANGUAGE_NAMES = dict(settings.LANGUAGES)
# Texts written in each language: a comment names one of the two.
TEXT_LABELS = {
    "title": gettext_lazy("Title"),
    "summary": gettext_lazy("Summary"),
    "symptoms_text": gettext_lazy("Symptoms"),
    "trigger": gettext_lazy("Trigger"),
    "detection": gettext_lazy("Detection"),
    "lessons": gettext_lazy("Lessons"),
    "impact.scope": gettext_lazy("Impact: scope"),
    "impact.users": gettext_lazy("Impact: users"),
    "impact.region": gettext_lazy("Impact: region"),
}
# Fields in no language, in the order of the case form.
PLAIN_LABELS = {
    "id": gettext_lazy("Id"),
    "org": gettext_lazy("Organisation"),
    "date": gettext_lazy("Date"),
    "date_kind": gettext_lazy("Date kind"),
    "severity": gettext_lazy("Severity"),
    "root_cause": gettext_lazy("Cause"),
    "timeline.detected_after": gettext_lazy("Detected after"),
    "timeline.resolved_after": gettext_lazy("Resolved after"),
    "recurrence_of": gettext_lazy("Recurrence of"),
    "docs": gettext_lazy("Documentation links"),
    "url": gettext_lazy("Canonical address"),
    "licence": gettext_lazy("Licence of reused text"),
    "review.written_by": gettext_lazy("Written by"),
    "domain": gettext_lazy("Domains"),
    "symptoms": gettext_lazy("Symptom terms"),
    "components": gettext_lazy("Components"),
    "contributing": gettext_lazy("Contributing factors"),
    "remediation": gettext_lazy("Remediation"),
    "action_items": gettext_lazy("Follow-up actions"),
    "sources": gettext_lazy("Sources"),
    "related": gettext_lazy("Related cases"),
}
# Lists whose items may be commented on one by one: (kind of step, or None for sources).
ITEM_LISTS = {
    "remediation": CaseStep.Kind.REMEDIATION,
    "action_items": CaseStep.Kind.ACTION_ITEM,
    "sources": None,
}
ITEM_LABELS = {
    "remediation": gettext_lazy("Remediation step %(n)s"),
    "action_items": gettext_lazy("Follow-up action %(n)s"),
    "sources": gettext_lazy("Source %(n)s"),
}
# `name`, `name[index]`, each with `.en` or `.ko`; the name is the shortest that fits, so
# `impact.scope.en` is impact.scope in English, `timeline.detected_after` a plain field.
PATH = re.compile(
    r"(?P<name>[a-z_]+(?:\.[a-z_]+)??)(?:\[(?P<index>0|[1-9][0-9]{0,3})\])?(?:\.(?P<language>en|ko))?"
)


class FieldPath(NamedTuple):
    name: str  # "trigger", "impact.scope", "remediation", "timeline.detected_after"
    index: int | None  # of an item of a list: remediation[2] is 2
    language: str | None


def parse_path(path):
    """The parts of a known field path, or None."""
    if not isinstance(path, str) or len(path) > MAX_PATH_LENGTH:
        return None
    match = PATH.fullmatch(path)
    if match is None:
        return None
    index = match["index"]
    parsed = FieldPath(match["name"], None if index is None else int(index), match["language"])
    return parsed if _label(parsed) is not None else None


def _label(parsed):
    name, index, language = parsed
    if name in TEXT_LABELS:
        if index is not None or language is None:
            return None
        label = TEXT_LABELS[name]
    elif index is not None:
        if name not in ITEM_LISTS or (name == "sources" and language):
            return None
        label = ITEM_LABELS[name] % {"n": index + 1}
    elif name in PLAIN_LABELS and language is None:
        label = PLAIN_LABELS[name]
    else:
        return None
    if language:
        return _("%(field)s, %(language)s") % {
            "field": label,
            "language": LANGUAGE_NAMES[language],
        }
    return str(label)


def field_label(path):
    """How a reader calls the field a path names ("Remediation step 3, Korean"), in their
    language; None for a path that names no field."""
    parsed = parse_path(path)
    return _label(parsed) if parsed else None
