"""How the public list answers a search (the part of cases.catalogue.query that only a
search needs): its plan, with the names it uses; its matches from the narrow search
entries, ranked once per version of the content (cases.catalogue.ranking); and, when no
case has every word, its fallbacks: the misspelled words corrected, then the cases with
the most of the words. No reader meets an empty list while some case has some of their
words, or words like them."""

from dataclasses import dataclass
from functools import cached_property

from django.core.exceptions import EmptyResultSet
from django.db.models import F

from cases.catalogue.facet_index import CaseSet
from cases.catalogue.filters import CaseFilter
from cases.catalogue.paging import CountedPaginator, faceted, page_number
from cases.catalogue.ranking import ranked_matches
from cases.models import Case
from cases.search.parsing import parse
from cases.search.query import matching_entries, order_keys
from cases.search.typos import misspellings


@dataclass
class SearchOutcome:
    """A search that did not find every word as written: `mode` "corrected" (the results
    are those of `corrected`, the query with `misspelled` words corrected), "partial" (the
    cases with the most of the words) or "none"."""

    mode: str
    corrected: str
    misspelled: list


class SearchAnswers:
    """CatalogueQuery's searching: its methods and attributes (data, filterset, index,
    using, searches, q, ordering, planned, _narrowed, _run) are the query's own."""

    def _search_filterset(self):
        self.filterset = CaseFilter(
            self.data,
            queryset=Case.objects.public_for_search(),
            terms=lambda: self.terms,
            plan=lambda: self.plan,
        )
        self.filterset.is_valid()
        self.__dict__.pop("cases", None)

    @property
    def outcome(self):
        """How the search was answered, for the list to say (None: no search, or every
        word found as written)."""
        if not self.searches or self.search_mode == "all":
            return None
        return SearchOutcome(
            self.search_mode,
            self.plan.corrected_text if self.corrections else "",
            list(self.corrections),
        )

    @cached_property
    def plan(self):
        """The search's plan: its words, with the other names of what they name."""
        return parse(self.q, self.index.names)

    def _answered(self, run, found):
        """`run()`'s result for the search as planned, or, if `found(result)` is false,
        for the first fallback that finds something: the misspelled words corrected, then
        the cases with the most of the words (corrections included). No reader meets an
        empty list while some case has some of their words."""
        result = run()
        # An invalid list lists nothing whatever its words (its notices say why).
        if found(result) or not (self.searches and self.valid) or self._fallbacks is not None:
            return result
        self._fallbacks = []
        self.written_plan = self.plan
        single = [c.text for c in self.plan.clauses if len(c.own.words) == 1 and not c.own.phrase]
        self.corrections, self.unknown_words = misspellings(single, self.using)
        if self.corrections:
            self._fallbacks.append(("corrected", self.plan.with_corrections(self.corrections)))
        corrected = self._fallbacks[0][1] if self._fallbacks else self.plan
        if len(self.plan.clauses) > 1 or self.corrections:
            self._fallbacks.append(("partial", corrected.as_partial()))
        for mode, plan in self._fallbacks:
            self.search_mode, self.__dict__["plan"] = mode, plan
            self._search_filterset()
            result = run()
            if found(result):
                return result
        self.search_mode = "none"
        return result

    def _searched_page(self, number, size, ordering):
        """A search's page of keys in `ordering`, from its entries (see _narrowed)."""
        index = self.index
        asked = page_number(number) or 1
        with self.planned():
            narrowed, keys = self._answered(
                lambda: self._narrowed(index, (ordering, (asked - 1) * size, size)),
                lambda result: bool(result[0]),
            )
            listed = faceted(self.filterset, index, narrowed)
            page = CountedPaginator([], size, len(listed)).get_page(number)
            if page.number != asked:  # out of range: the last page
                _, keys = self._narrowed(index, (ordering, (page.number - 1) * size, size))
        page.object_list = keys
        return page

    def _searched(self, index, dates, page):
        """_narrowed for a search: its matches, from the narrow search entries (cases.
        models.search), ranked once for this version of the content (catalogue.ranking);
        the page is taken from the kept head in memory, or, past it, asked for."""
        ordering = page[0] if page else self.ordering
        entries = dated(matching_entries(self.plan, self.using), dates)
        columns = {name.lstrip("-") for name in ordering}
        rows = entries.order_by().values(*columns, id=F("case_id"))
        key = (self.plan, dates.get("from"), dates.get("to"))
        plan, using = self.plan, self.using
        # A search within dates is ranked afresh after a change: order_keys knows no dates.
        follow = None if any(key[1:]) else lambda pks: order_keys(plan, pks, ordering, using)
        try:
            ranked = ranked_matches(index, rows, ordering, key, follow)
        except EmptyResultSet:  # nothing can match
            self.matched = CaseSet()
            return CaseSet(), None
        self.matched = ranked.matched  # what a cached page of it was found from
        if not page:
            return ranked.matched, None
        _ordering, offset, limit = page
        keys = ranked.page(faceted(self.filterset, index, ranked.matched), offset, limit)
        if keys is None:  # past the kept head: this page of the search, from the database
            _matched, keys = self._run(index, rows, page)
        return ranked.matched, keys


def dated(entries, cleaned_data):
    """The entries within the list's dates (as its DateFilters select cases)."""
    if cleaned_data.get("from"):
        entries = entries.filter(date__gte=cleaned_data["from"])
    if cleaned_data.get("to"):
        entries = entries.filter(date__lte=cleaned_data["to"])
    return entries
