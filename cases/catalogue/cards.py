"""A list's cards as HTML, each rendered once per case and change, kept in the shared cache.

A new or withdrawn case changes the counts on every list it is counted in, so every such
list is rendered again; but the twenty cards on it are mostly the cards it showed before,
and they were over half of its cost (reading their cases and rendering their texts). A card
shows its case alone: its texts, terms, organisation and date. It is kept, in the page's
language and for the search words it marks, with the version of the public content it was
last known good at, and is good at a later version while no change since named its case
(cases.catalogue.changes); a change of everything (a relabelled term, a renamed
organisation, an import) renews every card, as it renews every page.
"""

import hashlib
from dataclasses import dataclass

from django.core.cache import cache
from django.db import router
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from cases.caching import PAGE_FORMAT, public_version
from cases.catalogue.change_log import changes_between
from cases.models import ContentVersion

CARD_TIMEOUT = 60 * 60
# A card known good long ago is written back with its newer version, so that its check
# does not read ever more versions' changes.
RECHECK_AFTER = 64  # versions


@dataclass(frozen=True)
class ListedCard:
    """One case on a list's page: enough to say which case it is, and its card."""

    pk: int
    public_id: str
    html: str


def variant_of(highlighter):
    """What a card's HTML depends on beyond its case and language: the search words it
    marks in its title and snippet."""
    if highlighter is None:
        return "plain"
    marked = repr((highlighter.words, sorted(highlighter.stems), highlighter.phrases))
    return hashlib.sha256(marked.encode()).hexdigest()[:24]


def card_key(pk, language, variant):
    return f"case-card:{PAGE_FORMAT}:{language}:{variant}:{pk}"


def good_at(checked, pk, version, using, language=None):
    """Whether a card last known good at version `checked` is good at `version`; with
    `language`, a plain card, which shows its case's texts in that language only."""
    if checked == version:
        return True
    changes = changes_between(using, checked, version)
    if changes is None:
        return False
    changed = changes.own if language is None else changes.own_in(language)
    return pk not in changed  # (a card shows no links)


def listed_cards(pks, *, render_missing, highlighter=None):
    """The cards of the cases with these primary keys, in their order, as ListedCards:
    those kept and still good from the cache, the others from `render_missing(pks)`, which
    returns {pk: (public_id, html)} and whose cards are kept for the next list."""
    pks = list(pks)
    language = get_language()
    variant = variant_of(highlighter)
    version = public_version()
    using = router.db_for_read(ContentVersion)
    keys = {pk: card_key(pk, language, variant) for pk in pks}
    kept = cache.get_many(keys.values()) if pks else {}
    found, to_keep = {}, {}
    for pk, key in keys.items():
        entry = kept.get(key)
        if entry is None:
            continue
        checked, public_id, html = entry
        if good_at(checked, pk, version, using, language if highlighter is None else None):
            found[pk] = (public_id, html)
            if version - checked >= RECHECK_AFTER:
                to_keep[key] = (version, public_id, html)
    missing = [pk for pk in pks if pk not in found]
    if missing:
        rendered = render_missing(missing)
        found.update(rendered)
        to_keep.update({keys[pk]: (version, *rendered[pk]) for pk in missing if pk in rendered})
    if to_keep:
        cache.set_many(to_keep, CARD_TIMEOUT)
    return [ListedCard(pk, found[pk][0], mark_safe(found[pk][1])) for pk in pks if pk in found]


def rendered_card(case, highlighter=None):
    """(public_id, html) of one case's card, as a list shows it."""
    html = render_to_string(
        "cases/partials.html#case_card",
        {"case": case, "collapse": True, "highlighter": highlighter},
    )
    return case.public_id, html
