"""What a case shows of itself on other pages, in each of the public's languages: its card
on a list, its link on another case's page, its line in a list's "Check your own system".

A correction is often made in one language: the English changed, the Korean to follow (or
the other way). A Korean list, or a Korean case page that links the case, shows the
Korean texts and is as it was; only its English twin changed. So each change says in
which languages what the case shows elsewhere changed (PublicChange.languages), and a
cached page in a language the change did not touch keeps its cards and links
(cases.catalogue.changes.Changes.own_in). The case's own pages, which show everything
about it, are rendered again after any change of it, in every language.

What a case shows in a language is each of its texts as pages resolve it
(`fallback_order`: the language's own text, else the default language's, else any other,
marked with the language it is in), its steps' texts so resolved, and every column that
is the same in all languages, except those below that no other page shows.
"""

import functools
import hashlib

from django.conf import settings

from cases.models import Case, CaseStep

LANGUAGE_CODES = tuple(code for code, _name in settings.LANGUAGES)

# Columns no card, link or check line shows (the case's own page shows some of them, and
# is rendered again after any change of it), or that a change weighs apart: whether the
# public sees the case at all (`status`, `draft_of`). A test renders a card, a link and a
# check line before and after a change of each and finds them the same.
NOT_SHOWN_ELSEWHERE = frozenset(
    {
        "id",
        "status",
        "draft_of_id",
        "reviewed_by",
        "reviewed_at",
        "updated_at",
        "published_at",
        "import_fingerprint",
        "search_text",
        "created_by_id",
        "last_edited_by_id",
        "submitted_by_id",
        "submitted_at",
        "edit_version",
        "translation_basis",
        "ko_missing",
        "en_missing",
        "ko_stale",
        "ko_stale_since",
        "created",
        "modified",
    }
)


@functools.cache  # (each text a page shows asks it)
def fallback_order(language):
    """The languages whose text a page in `language` shows, first found first: its own,
    the default language, then any other (cases.templatetags.library.translated_text)."""
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    return tuple(dict.fromkeys([language, default, *LANGUAGE_CODES]))


def resolved(texts, language):
    """(text, the language it is in) of {code: text} as a page in `language` shows it."""
    for code in fallback_order(language):
        if texts.get(code):
            return texts[code], code
    return "", language


def _translated():
    from modeltranslation.translator import translator

    return tuple(sorted(translator.get_options_for_model(Case).fields))


TRANSLATED = _translated()
TRANSLATED_COLUMNS = tuple(f"{field}_{code}" for field in TRANSLATED for code in LANGUAGE_CODES)
SAME_IN_EVERY_LANGUAGE = tuple(
    field.attname
    for field in Case._meta.concrete_fields
    if field.attname not in NOT_SHOWN_ELSEWHERE
    and field.name not in TRANSLATED
    and field.attname not in TRANSLATED_COLUMNS
)
# What `shown_by_language` reads of a case, in this order.
COLUMNS = ("pk", *TRANSLATED_COLUMNS, *SAME_IN_EVERY_LANGUAGE)
STEP_COLUMNS = ("case_id", "kind", "position", *(f"text_{code}" for code in LANGUAGE_CODES))


def steps_of(pks, using):
    """{pk: [(kind, position, {code: text}), ...]} of these cases' steps, in order."""
    found = {}
    rows = (
        CaseStep.objects.using(using)
        .filter(case__in=pks)
        .order_by("case_id", "kind", "position")
        .values_list(*STEP_COLUMNS)
    )
    for case_id, kind, position, *texts in rows:
        found.setdefault(case_id, []).append(
            (kind, position, dict(zip(LANGUAGE_CODES, texts, strict=True)))
        )
    return found


def shown_by_language(row, steps):
    """((code, digest), ...): what a case shows elsewhere in each language, as a digest,
    from its `row` (COLUMNS) and its `steps` (steps_of)."""
    values = dict(zip(COLUMNS, row, strict=True))
    same = repr([values[column] for column in SAME_IN_EVERY_LANGUAGE])
    shown = []
    for language in LANGUAGE_CODES:
        texts = [
            resolved({code: values[f"{field}_{code}"] for code in LANGUAGE_CODES}, language)
            for field in TRANSLATED
        ]
        # (in their order: a write numbers them afresh, and a page shows no number)
        texts += [(kind, resolved(text, language)) for kind, _position, text in steps]
        digest = hashlib.sha256(repr((same, texts)).encode()).hexdigest()[:32]
        shown.append((language, digest))
    return tuple(shown)


def languages_touched(before, after):
    """The languages in which a case shows something else elsewhere after a change, from
    its `shown_by_language` before and after, as PublicChange.languages writes them."""
    old, new = dict(before), dict(after)
    return " ".join(code for code in LANGUAGE_CODES if old.get(code) != new.get(code))
