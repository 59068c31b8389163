"""What of a cached list can be mended rather than rendered whole: its run of cards and its
"Check your own system" (CardsBlock), and the entries of its JSON (EntriesBlock).

A correction of one case's title changes every list that shows its card, or names it
under a question of its "Check your own system", and every list JSON it is an entry of:
under one correction a second, the broad mix rendered about one such list a second again,
whole (its facets, counts, charts and twenty cards, or twenty cases in the exchange
format), for one changed card, line or entry. When a change touched the cases a list shows
only in what lists do not count or sort by (a title or a summary, not a date,
organisation, terms or being public: Changes.listed), the same cases are on the same page
in the same order under the same counts, and the same questions name the same cases: only
their texts need be put in again. The run of cards is taken from the card cache
(cases.catalogue.cards), where only the changed cards are rendered; the section is made
again from what it asked (a CheckPlan: one query); a JSON's changed entries are written
again from their cases. Each is put in place of the old (`mend`, called by
cases.caching). A search's first page is mended so too (SearchCardsBlock) when its cases
are still found in the same order: a changed text may move what the search finds and how
it ranks it. Any other change renders the page whole, as before.
"""

import json
import pickle
from dataclasses import dataclass, replace
from itertools import pairwise

from django.core.serializers.json import DjangoJSONEncoder
from django.db import router
from django.template.loader import render_to_string
from django.utils import translation

from cases.catalogue.cards import listed_cards
from cases.catalogue.changes import ranks_before
from cases.catalogue.checklist import check_of
from cases.catalogue.filters import public_terms
from cases.exchange.serialize import case_to_exchange
from cases.models import Case, ContentVersion
from cases.search.query import order_keys
from cases.search.snippets import highlighter_for

CHECK_TEMPLATE = "cases/check_section.html"
# As the list's JSON is written (cases.public.views.case_list_json): read back and written
# again so, it is what writing it afresh makes.
JSON_PARAMETERS = {"ensure_ascii": False}
CHECK_BEGIN, CHECK_END = b'<section class="check"', b"</section>"


class TextsOfShownCases:
    """What cases.caching asks of a list's mendable part (`shown`: the cases whose texts
    it shows; `elsewhere`: those the page shows where the part cannot put them in again)."""

    def set_aside(self, changes):
        """The cases whose changes putting the part in again answers for, or None: render
        the page whole. A case changed as another's neighbour (its links, which a list
        does not show) changed nothing the page shows of it."""
        shown = changes.cases & self.shown
        own = changes.own & shown
        if not shown or own & self.elsewhere or own & changes.listed:
            return None
        return shown

    def changed_by(self, changes):
        """Whether a change set aside changed what the part shows (the page is as it was
        if not)."""
        return bool(changes.own & self.shown)


@dataclass(frozen=True)
class CheckPart:
    """Where a list page's "Check your own system" lies (bytes), the cases it names, and
    what it asks (a cases.catalogue.checklist.CheckPlan, pickled: every hit of the page
    reads this, and only a mend the plan)."""

    keys: frozenset
    asked: bytes
    start: int
    end: int

    @property
    def plan(self):
        return pickle.loads(self.asked)


@dataclass(frozen=True)
class CardsBlock(TextsOfShownCases):
    """A list page's run of cards, as its cached copy keeps it: the cases on the cards in
    their order, its section "Check your own system" if it can be made again (CheckPart),
    the cases the page shows elsewhere (a section that cannot), the language of the page,
    where the run lies (bytes), and the version it was last mended at (a mended page is a
    new page: its ETag says so)."""

    cases: tuple
    elsewhere: frozenset
    language: str
    start: int
    end: int
    check: CheckPart | None = None
    mended: int | None = None

    @property
    def shown(self):
        checked = self.check.keys if self.check else frozenset()
        return {*self.cases} | self.elsewhere | checked

    def changed_by(self, changes):
        """Whether a change set aside changed what the cards show in the page's language
        (a correction of the English leaves a Korean list as it was)."""
        return bool(changes.own_in(self.language) & self.shown)

    def mend(self, content, version, changes):
        """(content, CardsBlock) with the cards as the card cache has them at `version`
        (the public version this request reads), and the section made again if a case it
        names changed; None if a case is gone."""
        from cases.catalogue.listing import rendered_cards  # (it imports this module)

        check = self.check
        with translation.override(self.language):
            highlighter = self.highlighter()
            cards = listed_cards(
                self.cases,
                render_missing=lambda pks: rendered_cards(pks, public_terms(), highlighter),
                highlighter=highlighter,
            )
            section = None
            if check is not None and changes.own_in(self.language) & check.keys:
                section = check_section(check.plan)
        if tuple(card.pk for card in cards) != self.cases:
            return None
        if section is not None:  # (after the cards: their place is as it was)
            content = content[: check.start] + section + content[check.end :]
            check = replace(check, end=check.start + len(section))
        run = "".join(card.html for card in cards).encode()
        content = content[: self.start] + run + content[self.end :]
        moved = self.start + len(run) - self.end
        if check is not None:
            check = replace(check, start=check.start + moved, end=check.end + moved)
        return content, replace(self, end=self.start + len(run), check=check, mended=version)

    def highlighter(self):
        """What the cards mark (a list's: nothing)."""
        return None


@dataclass(frozen=True)
class SearchCardsBlock(CardsBlock):
    """A search's first page's run of cards, as CardsBlock, with the search's plan (its
    cards mark its words) and order. A changed text may move a case in or out of what the
    search finds, or up or down its order: the page is mended only if every case on it is
    still found, in the same order, and the last on it is not a changed one (a case past
    the page may now rank before it). The cases not on the page are weighed by the page's
    ShownSearch, as when nothing on it changed."""

    plan: object = None
    ordering: tuple = ()

    def highlighter(self):
        return highlighter_for(self.plan)

    def changed_by(self, changes):
        """Whether a change set aside changed a case on the page, in any language: a
        search finds and orders by the texts of every language, and a card's snippet may
        be in another language than the page's."""
        return bool(changes.own & self.shown)

    def mend(self, content, version, changes):
        if not self.keeps_its_order(changes.own.intersection(self.cases)):
            return None
        return super().mend(content, version, changes)

    def keeps_its_order(self, changed):
        """Whether the page's cases are still found, in their order, after a change of
        the texts of `changed` among them (a case's rank is its own: the others' stay)."""
        if not changed:
            return True
        if self.cases[-1] in changed:
            return False
        found = order_keys(self.plan, self.cases, self.ordering, router.db_for_read(ContentVersion))
        if found.keys() != set(self.cases):
            return False
        values = [found[pk] for pk in self.cases]
        if any(value is None for each in values for value in each):
            return False  # (no value to compare: the databases order a NULL each its way)
        return all(ranks_before(a, b, self.ordering) for a, b in pairwise(values))


def check_section(plan):
    """The section a CheckPlan asks, as the list page renders it (bytes)."""
    html = render_to_string(CHECK_TEMPLATE, {"check": check_of(plan)}).encode()
    start = html.find(CHECK_BEGIN)
    return html[start : html.index(CHECK_END, start) + len(CHECK_END)]


def cards_block(content, cards, *, check=None, search=None):
    """The CardsBlock of a rendered list page (`content`, bytes) whose cards are `cards`
    (ListedCards, rendered in the active language, marking the words of `search`, the
    (plan, ordering) of a search's first page: a SearchCardsBlock), and whose "Check your
    own system" is `check` (a Check) if it has one; None if the page does not hold the run
    of cards once (nothing to mend: the page is rendered whole after a change of its
    cases)."""
    if not cards:
        return None
    run = "".join(card.html for card in cards).encode()
    start = content.find(run)
    if start < 0 or content.find(run, start + 1) >= 0:
        return None
    end = start + len(run)
    part, elsewhere = None, frozenset()
    if check is not None:
        span = section_span(content, end)
        if span is None or check.plan is None:
            elsewhere = frozenset(check.case_keys())
        else:
            plan = check.plan
            part = CheckPart(frozenset(plan.case_keys()), pickle.dumps(plan), *span)
    block = CardsBlock(
        cases=tuple(card.pk for card in cards),
        elsewhere=elsewhere,
        language=translation.get_language(),
        start=start,
        end=end,
        check=part,
    )
    if search is None:
        return block
    plan, ordering = search
    return SearchCardsBlock(**vars(block), plan=plan, ordering=tuple(ordering))


def section_span(content, after):
    """(start, end) of the one section "Check your own system" in `content` past `after`
    (the end of its cards), or None."""
    start = content.find(CHECK_BEGIN, after)
    if start < 0 or content.find(CHECK_BEGIN, start + 1) >= 0:
        return None
    end = content.find(CHECK_END, start)
    return (start, end + len(CHECK_END)) if end >= 0 else None


@dataclass(frozen=True)
class EntriesBlock(TextsOfShownCases):
    """A list's JSON (`cases.json`), as its cached copy keeps it: the cases of its
    `results` in their order, and the version it was last mended at. A change of their
    texts changes only their entries: those are written again, and the rest kept."""

    cases: tuple
    mended: int | None = None

    @property
    def shown(self):
        """An entry names its related cases by id: a neighbour's change is none of it."""
        return frozenset(self.cases)

    elsewhere = frozenset()  # (a JSON shows nothing but its entries)

    def mend(self, content, version, changes):
        """(content, EntriesBlock) with the changed cases' entries as they are at
        `version`; None if one is no longer public or the JSON is not as it was kept."""
        data = json.loads(content)
        results = data.get("results")
        if not isinstance(results, list) or len(results) != len(self.cases):
            return None
        changed = changes.own.intersection(self.cases)
        fresh = Case.objects.public().for_exchange().in_bulk(changed)
        if fresh.keys() != changed:
            return None
        for position, pk in enumerate(self.cases):
            if pk in changed:
                results[position] = case_to_exchange(fresh[pk], public=True)
        content = json.dumps(data, cls=DjangoJSONEncoder, **JSON_PARAMETERS).encode()
        return content, replace(self, mended=version)
