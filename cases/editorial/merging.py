"""Two saves of one case at once: the second editor's work merged with the first's.

A save made against an older version of a case is refused (drafts.lock_unchanged_since)
rather than written over the newer one. The editor then sees the case part by part —
each translated text in each language, each value, each inline table whole — theirs
(what is stored now) beside mine (what they submitted), takes one side for each part that
differs, and saves the result through the one editorial save, so it is validated and
recorded like any save.

The parts are the exchange format's (its normal form, exchange.validation.validate_case):
what the admin's form and its inlines edit, and nothing else. Where the version the
editor started from is known (`base`), a part only one side changed is proposed from that
side; a part both changed is left for the editor to choose.
"""

import difflib
import re
from dataclasses import dataclass

from django.core import signing
from django.db import transaction
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from cases.exchange.validation import STEP_LIST_FIELDS, TERM_LIST_FIELDS, validate_case
from cases.models import Case
from cases.rules import LANGUAGES

from .drafts import CaseInvalid, case_save, lock_unchanged_since
from .fields import TEXT_LABELS, field_label
from .revisions import exchange_form
from .rights import WorkflowError

THEIRS, MINE = "theirs", "mine"
BASE_SALT = "incidentlib.case.merge-base"


@dataclass(frozen=True)
class Part:
    """One piece of a case that a merge takes whole from one side, named by its exchange
    path (`title.ko`, `sources`); `paths` are the keys leading to its values in the normal
    form (an organisation is its name and its slug)."""

    key: str
    kind: str  # "text", "value", "steps", "sources" or "list"
    paths: tuple = ()

    def __post_init__(self):
        if not self.paths:
            object.__setattr__(self, "paths", (tuple(self.key.split(".")),))

    @property
    def label(self):
        """Said in the language of whoever reads it: "Trigger, Korean"."""
        return field_label(self.key)

    def get(self, normal):
        values = []
        for path in self.paths:
            value = normal
            for step in path:
                value = value.get(step) if isinstance(value, dict) else None
            values.append(value)
        return values[0] if len(values) == 1 else tuple(values)

    def take(self, target, source):
        """Copy this part's values from `source` into `target` (both normal forms)."""
        for path in self.paths:
            into, value = target, source
            for step in path[:-1]:
                into, value = into.setdefault(step, {}), value.get(step, {})
            into[path[-1]] = value.get(path[-1])


def _parts():
    """In the order of the case form."""
    parts = [
        Part("id", "value"),
        Part("org", "value", (("org",), ("org_slug",))),
        *(Part(name, "value") for name in ("date", "date_kind", "severity")),
    ]
    story = [name for name in TEXT_LABELS if not name.startswith("impact.")]
    impact = [name for name in TEXT_LABELS if name.startswith("impact.")]
    parts += [Part(f"{name}.{code}", "text") for name in story for code in LANGUAGES]
    parts.append(Part("root_cause", "value"))
    parts += [Part(f"{name}.{code}", "text") for name in impact for code in LANGUAGES]
    parts += [Part(f"timeline.{field}", "value") for field in ("detected_after", "resolved_after")]
    parts += [Part(name, "list") for name in TERM_LIST_FIELDS]
    parts += [Part(name, "steps") for name in STEP_LIST_FIELDS]
    parts += [
        Part("sources", "sources"),
        Part("related", "list"),
        Part("recurrence_of", "value"),
        Part("docs", "list"),
        Part("url", "value"),
        Part("licence", "value"),
        Part("review.written_by", "value"),
    ]
    return tuple(parts)


# Everything a person edits; the review fields and `updated_at` are the workflow's and stay.
PARTS = _parts()
PARTS_BY_KEY = {part.key: part for part in PARTS}


@dataclass
class Difference:
    part: Part
    theirs: object
    mine: object
    proposed: str | None  # THEIRS, MINE, or None: both changed it (or no base), choose
    chosen: str | None = None  # what the merge page shows selected

    @property
    def key(self):
        return self.part.key

    @property
    def sides(self):
        """(side, value as shown, text with the other side's differences marked) twice."""
        return [
            (THEIRS, self.shown(self.theirs), self.marked(self.theirs, self.mine)),
            (MINE, self.shown(self.mine), self.marked(self.mine, self.theirs)),
        ]

    def shown(self, value):
        if isinstance(value, tuple):  # an organisation: its name and slug
            return f"{value[0]} ({value[1]})" if value[0] else None
        return value

    def marked(self, text, other):
        return marked(text, other) if self.part.kind == "text" and text else None

    @property
    def changed_by_both(self):
        return self.proposed is None


def differences(theirs, mine, base=None):
    """The parts in which `mine` differs from `theirs`, in the form's order, each with the
    side to propose: the side that changed it since `base`, when only one did."""
    found = []
    for part in PARTS:
        their_value, my_value = part.get(theirs), part.get(mine)
        if their_value == my_value:
            continue
        proposed = None
        if base is not None:
            base_value = part.get(base)
            if base_value == their_value:
                proposed = MINE
            elif base_value == my_value:
                proposed = THEIRS
        found.append(Difference(part, their_value, my_value, proposed))
    return found


def compose(theirs, mine, choices):
    """Theirs, with each part `choices` names as MINE taken from mine."""
    merged = _copy(theirs)
    for key, side in choices.items():
        if side == MINE and key in PARTS_BY_KEY:
            PARTS_BY_KEY[key].take(merged, mine)
    return merged


def _copy(value):
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


# --- the version the editor started from, carried by the form ---------------------------


def sign_base(normal):
    """The normal form an editor opened, for the form to carry back (signed: it proposes
    which side to take, and must be the server's own word)."""
    return signing.dumps(normal, salt=BASE_SALT, compress=True)


def unsign_base(token):
    """The signed normal form, or None when absent, forged or unreadable."""
    if not token:
        return None
    try:
        return signing.loads(token, salt=BASE_SALT)
    except (signing.BadSignature, ValueError):
        return None


def opened_form(case):
    """The case's normal form as the editor sees it now, signed; "" when the stored case
    breaks a rule (the merge then proposes nothing, and asks about every part)."""
    try:
        return sign_base(exchange_form(case))
    except WorkflowError:
        return ""


# --- saving a merge ---------------------------------------------------------------------


class MergeConflict(WorkflowError):
    """The case changed again since the merge page was shown: merge once more."""


class MergeIncomplete(WorkflowError):
    """Some parts that both sides changed have no choice yet."""

    def __init__(self, parts):
        super().__init__(
            _("Choose theirs or yours for: %(parts)s.")
            % {"parts": ", ".join(str(part.label) for part in parts)}
        )
        self.parts = parts


def merge_state(case, mine, base=None):
    """(theirs, its edit_version, the differences with `mine`) for a merge page."""
    theirs = exchange_form(case)
    version = Case.objects.filter(pk=case.pk).values_list("edit_version", flat=True).get()
    return theirs, version, differences(theirs, mine, base)


def normal_mine(raw):
    """The submitted side as the validator leaves it; CaseInvalid if it breaks a rule."""
    normal, problems = validate_case(raw)
    if problems:
        raise CaseInvalid(problems)
    return normal


@transaction.atomic
def case_save_merged(*, case, mine, choices, theirs_version, user):
    """Save theirs (the case as stored at `theirs_version`) with the parts `choices` gives
    to MINE taken from `mine`; the editorial save validates and records it.

    MergeConflict when the case moved past `theirs_version` meanwhile; MergeIncomplete
    when a differing part has no choice.
    """
    try:
        lock_unchanged_since(case, theirs_version)
    except WorkflowError:
        raise MergeConflict(
            _("The case was saved again while you merged. Here is the newest version.")
        ) from None
    mine = normal_mine(mine)
    theirs = exchange_form(case)
    missing = [
        d.part for d in differences(theirs, mine) if choices.get(d.key) not in (THEIRS, MINE)
    ]
    if missing:
        raise MergeIncomplete(missing)
    return case_save(
        case=case,
        data=compose(theirs, mine, choices),
        user=user,
        seen_version=theirs_version,
        reason=_("merged with a save made meanwhile"),
    )


# --- showing a difference -----------------------------------------------------------------

WORDS = re.compile(r"\s+|\S+\s*")  # a word with the space after it, or leading space


def marked(text, other):
    """`text` as HTML, the runs of words that `other` lacks wrapped in <mark>."""
    words, other_words = WORDS.findall(text or ""), WORDS.findall(other or "")
    matcher = difflib.SequenceMatcher(None, words, other_words, autojunk=False)
    pieces = []
    for tag, start, end, _other_start, _other_end in matcher.get_opcodes():
        run = "".join(words[start:end])
        if run:
            pieces.append((tag != "equal", run))
    return format_html_join(
        "",
        "{}",
        ((format_html("<mark>{}</mark>", run) if changed else run,) for changed, run in pieces),
    )
