"""A list page's run of cards, kept with its cached copy so that the page can be mended
rather than rendered whole.

A correction of one case's title changes every list that shows its card: under one
correction a second, the broad mix rendered about one such list a second again, whole (its
facets, counts, charts and twenty cards), for one changed card. When a change touched the
cases on a list's cards only in what lists do not count or sort by (a title or a summary,
not a date, organisation, terms or being public: Changes.listed), the same cases are on
the same page in the same order under the same counts, and only their cards need be put
in again: the run of cards is taken from the card cache (cases.catalogue.cards), where
only the changed cards are rendered, and put in place of the old (`CardsBlock.mend`,
called by cases.caching). A search's page is never mended (a changed text moves what it
finds and marks), nor a page that shows a changed case elsewhere than on its card (its
"Check your own system"). Any other change renders the page whole, as before.
"""

from dataclasses import dataclass, replace

from django.utils import translation

from cases.catalogue.cards import listed_cards
from cases.catalogue.filters import public_terms


@dataclass(frozen=True)
class CardsBlock:
    """A list page's run of cards, as its cached copy keeps it: the cases on the cards in
    their order, the cases the page shows elsewhere, the language of the cards, where the
    run lies in the page (bytes), and the version it was last mended at (a mended page is
    a new page: its ETag says so)."""

    cases: tuple
    elsewhere: frozenset
    language: str
    start: int
    end: int
    mended: int | None = None

    # What cases.caching asks of a page's mendable part.
    def set_aside(self, changes):
        """The cases whose changes putting in their cards again answers for, or None:
        render the page whole. A case changed as another's neighbour (its links, which
        a list does not show) changed nothing the page shows of it."""
        shown = changes.cases & ({*self.cases} | self.elsewhere)
        own = changes.own & shown
        if not shown or own & self.elsewhere or own & changes.listed:
            return None
        return shown

    def changed_by(self, changes):
        """Whether a change set aside changed a card (the page is as it was if not)."""
        return bool(changes.own.intersection(self.cases))

    def mend(self, content, version):
        """(content, CardsBlock) with the run of cards as the card cache has it at
        `version` (the public version this request reads); None if a case is gone."""
        from cases.catalogue.listing import rendered_cards  # (it imports this module)

        with translation.override(self.language):
            cards = listed_cards(
                self.cases,
                render_missing=lambda pks: rendered_cards(pks, public_terms(), None),
            )
        if tuple(card.pk for card in cards) != self.cases:
            return None
        run = "".join(card.html for card in cards).encode()
        content = content[: self.start] + run + content[self.end :]
        return content, replace(self, end=self.start + len(run), mended=version)


def cards_block(content, cards, *, elsewhere=()):
    """The CardsBlock of a rendered list page (`content`, bytes) whose cards are `cards`
    (ListedCards, rendered in the active language without search marks) and which shows
    the cases `elsewhere` outside them too; None if the page does not hold the run once
    (nothing to mend: the page is rendered whole after a change of its cases)."""
    if not cards:
        return None
    run = "".join(card.html for card in cards).encode()
    start = content.find(run)
    if start < 0 or content.find(run, start + 1) >= 0:
        return None
    return CardsBlock(
        cases=tuple(card.pk for card in cards),
        elsewhere=frozenset(elsewhere),
        language=translation.get_language(),
        start=start,
        end=start + len(run),
    )
