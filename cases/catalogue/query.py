"""The public list as its query string asks for it: one object that the HTML list, its JSON
and the graph all read the cases through.

A CatalogueQuery owns the filterset (cases.catalogue.filters), the search (cases.search),
the facet counts and the page. The counts come from the facet index
(cases.catalogue.facet_index); the database is asked only for what the index cannot
answer: the cases a search or the dates select, and the page's keys, both from one run of
the search (materialized as `f`). A list without either chooses its page in SQL, by the
indexes on what it sorts by.

A facet's counts apply every filter except that facet's own selection, so a reader can
add a second value of a facet they already chose. Facets whose other filters are the same
are counted together, over the same cases.
"""

from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from django.core.exceptions import EmptyResultSet
from django.core.paginator import Page, Paginator
from django.db import connections
from django.utils.translation import gettext as _

from cases.catalogue.facet_index import (
    COLUMNS,
    CaseSet,
    current_facet_index,
    keys_aggregate,
    numbers,
)
from cases.catalogue.filters import DATES, FACETS, NARROWING, SORTS, CaseFilter
from cases.catalogue.paging import PAGE_SIZE, CountedPaginator, faceted, page_number
from cases.catalogue.searching import SearchAnswers, SearchOutcome  # noqa: F401
from cases.models import Case, Organisation, OrganisationRedirect, TermRedirect, Vocabulary
from cases.rules import is_slug
from cases.search.planner import planned_by_the_search_index
from cases.search.query import clean_query, query_words

# A list of at most so many cases fetches its page by their keys (CatalogueQuery._by_keys_if_few).
FEW_LISTED = 500


@dataclass
class FacetCounts:
    """What the facet index counts for a list, with the page of keys it shows."""

    facets: dict  # facet name -> {slug: count}, each ignoring the facet's own selection
    within: dict  # (vocabulary, slug) -> count among the listed cases themselves
    years: list  # [(year, count)] of the listed cases, oldest first
    page: Page  # of the listed cases' primary keys
    listed: CaseSet = None  # the listed cases themselves


class CatalogueQuery(SearchAnswers):
    """The public cases that a query string (a QueryDict) lists, and how."""

    def __init__(self, data):
        self.data = data
        public = Case.objects.public()
        self.using = public.db
        self.filterset = CaseFilter(data, queryset=public, terms=lambda: self.terms)
        self.valid = self.filterset.is_valid()
        self.notices = [] if self.valid else invalid_notices(self.filterset)
        # The search as the list shows it ("" when the filters are invalid).
        self.q = self.filterset.query
        # Whether the cases are searched: for words, not punctuation alone. The same test
        # chooses the search's public cases and plans every query that runs it.
        self.searches = bool(query_words(clean_query(self.filterset.form.cleaned_data.get("q"))))
        # How the search was answered: "all" its words, "corrected" misspellings, or only
        # "partial" matches (no case has every word); see `_answered`.
        self.search_mode = "all"
        self.corrections = {}
        # Set by a search's fallbacks: the plan as written, and its words no case has (a
        # change of the library's words can correct those).
        self.written_plan, self.unknown_words = None, []
        self._fallbacks = None
        if self.searches:
            self._search_filterset()

    @cached_property
    def index(self):
        """The facet index of the public content this request reads."""
        return current_facet_index(self.using)

    @property
    def terms(self):
        """Every public term (kept with the facet index)."""
        return self.index.terms

    @property
    def sort(self):
        return self.filterset.sort_order()

    @property
    def ordering(self):
        """The list's order: a search's by relevance, then newest first."""
        if self.sort == "relevance" and self.q:
            return ("-relevance", "-date", "-public_id")
        return SORTS.get(self.sort, SORTS["newest"])

    @property
    def has_filters(self):
        return any(self.filterset.selected(name) for name in FACETS) or any(
            self.data.get(name) for name in DATES
        )

    @cached_property
    def cases(self):
        """The listed cases in the list's order: a lazy queryset, which this object's
        methods evaluate inside `planned` (evaluated anywhere else, a search would be
        planned without the search index's settings)."""
        if not self.valid:
            return Case.objects.public().none()
        return self.filterset.qs.order_by(*self.ordering)

    @contextmanager
    def planned(self):
        """PostgreSQL's settings for a search, around the queries of this object that run
        it (cases.search.planner); other lists are planned as usual."""
        if not self.searches:
            yield
            return
        with planned_by_the_search_index(connections[self.using]):
            yield

    def facet_counts(self, number=None):
        """The counts of every facet and of the listed cases, and their page `number` (the
        query string's when None), as the HTML list shows them."""
        index = self.index  # built, if it must be, by its own plan, not a search's
        number = self.data.get("page") if number is None else number
        asked = page_number(number)
        page = (self.ordering, (asked - 1) * PAGE_SIZE, PAGE_SIZE) if asked and self.valid else None
        with self.planned():
            narrowed, keys = self._answered(
                lambda: self._narrowed(index, page), lambda result: bool(result[0])
            )
            counts = self._count(index, narrowed)
            paginator = CountedPaginator(
                self._by_keys_if_few(self.cases.values_list("pk", flat=True), counts.listed),
                PAGE_SIZE,
                # The year counts add up to the number of cases: one query less than a COUNT(*).
                sum(n for _year, n in counts.years),
            )
            counts.page = paginator.get_page(number)
            if self.searches and self.valid and counts.page.number != asked:  # out of range
                last = (self.ordering, (counts.page.number - 1) * PAGE_SIZE, PAGE_SIZE)
                _, keys = self._narrowed(index, last)
            elif keys is None or counts.page.number != asked:  # no search or dates, or out of range
                keys = list(counts.page.object_list)
        counts.page.object_list = keys
        return counts

    def _by_keys_if_few(self, rows, listed):
        """`rows` of the listed cases, asked for by their keys when the index counts few of
        them (`listed`, a CaseSet). Asked for the first few of a filter only a handful of
        cases pass, PostgreSQL walks every public case by date looking for them (25 ms at
        10,000 cases for a rare component's list), expecting to meet them early."""
        if listed is not None and len(listed) <= FEW_LISTED:
            return rows.filter(pk__in=listed.keys())
        return rows

    def listed(self):
        """The listed cases, a CaseSet of the facet index."""
        index = self.index
        if not self.valid:
            return CaseSet()
        with self.planned():
            narrowed, _keys = self._answered(
                lambda: self._narrowed(index, None), lambda result: bool(result[0])
            )
        return faceted(self.filterset, index, narrowed)

    def page(self, number=None, *, size=PAGE_SIZE, fields=None, ordering=None):
        """One page of the listed cases: their primary keys, or dicts of `fields`; in the
        list's order unless `ordering` is given; page `number`, or the query string's when
        None. A search's page of keys comes from its entries, as the HTML list's does."""
        number = self.data.get("page") if number is None else number
        if self.searches and self.valid:
            page = self._searched_page(number, size, ordering or self.ordering)
            if fields:
                keys = page.object_list
                wanted = Case.objects.filter(pk__in=keys).values("pk", *set(fields) - {"pk"})
                rows = {row["pk"]: row for row in wanted}
                page.object_list = [
                    {name: rows[pk][name] for name in fields} for pk in keys if pk in rows
                ]
            return page

        cases = self.cases if ordering is None else self.cases.order_by(*ordering)
        if not any(self.data.get(name) for name in DATES):  # (dates: a query of their own)
            cases = self._by_keys_if_few(cases, self.listed())
        rows = cases.values(*fields) if fields else cases.values_list("pk", flat=True)
        page = Paginator(rows, size).get_page(number)
        page.object_list = list(page.object_list)  # no search: nothing to plan
        return page

    def _narrowed(self, index, page):
        """(the public cases that the search and the dates select, a CaseSet; the keys of
        the page asked for, or None). Without a search or dates, every public case and no
        page: the list chooses its page in SQL, by the indexes on what it sorts by.

        With them, one query: their cases, and the page of those the facets select too,
        from one run of the search (materialized as f). `page` is (ordering, offset, limit).
        """
        if not any(any(self.data.getlist(name)) for name in NARROWING):
            return index.public, None
        narrowing = self.filterset.only(NARROWING)
        if not narrowing.is_valid():
            return CaseSet(), None
        if self.searches:
            return self._searched(index, narrowing.form.cleaned_data, page)
        columns = [name.lstrip("-") for name in page[0]] if page else []
        return self._run(index, narrowing.qs.order_by().values("id", *columns), page)

    def _run(self, index, rows, page):
        """_narrowed in one query of `rows` (dicts with `id` and the page's columns)."""
        try:
            sql, params = rows.query.sql_with_params()
        except EmptyResultSet:  # nothing can match
            return CaseSet(), None
        connection = connections[self.using]
        # The matches' keys in one row, not one row each (a third of the time at 100,000).
        query = f"SELECT 0, {keys_aggregate(connection).format('id')}, NULL FROM f"
        query_params = []
        if page:
            condition, condition_params = "TRUE", []
            if any(self.filterset.selected(name) for name in FACETS):
                faceted_only = self.filterset.only(FACETS).qs.order_by().values("id")
                try:
                    ids_sql, condition_params = faceted_only.query.sql_with_params()
                    condition = f"id IN ({ids_sql})"
                except EmptyResultSet:
                    condition = "FALSE"
            page_sql, page_params = page_branch(*page, condition, condition_params)
            query = f"{query} UNION ALL {page_sql}"
            query_params = page_params
        with connection.cursor() as cursor:
            cursor.execute(f"WITH f AS MATERIALIZED ({sql}) {query}", [*params, *query_params])
            rows = cursor.fetchall()
        matched = index.cases(numbers(next(keys for n, keys, _pk in rows if not n)))
        keys = [pk for n, _keys, pk in sorted(row for row in rows if row[0])] if page else None
        return matched, keys

    def _count(self, index, narrowed):
        """The counts of every facet over the narrowed cases (see facet_counts)."""
        groups = defaultdict(list)  # filter key -> facet names counted over those cases
        filtersets = {}
        for name in FACETS:
            others = (
                self.filterset.without(name) if self.filterset.selected(name) else self.filterset
            )
            groups[filter_key(others)].append(name)
            filtersets[filter_key(others)] = others
        # The listed cases themselves: term counts for "most common components in these
        # cases", the year chart and the number of cases all come from their group.
        full_key = filter_key(self.filterset)
        groups.setdefault(full_key, [])
        filtersets[full_key] = self.filterset

        terms_by_pk = {term.pk: term for term in self.terms}
        counts = FacetCounts({name: {} for name in FACETS}, {}, [], None)
        for key, names in groups.items():
            others = filtersets[key]
            selection = faceted(others, index, narrowed) if others.is_valid() else CaseSet()
            if key == full_key:
                counts.listed = selection
                group = index.counts(selection)
            else:
                vocabularies = {FACETS[n] for n in names} - {None, Vocabulary.ROOT_CAUSE}
                group = index.counts(
                    selection,
                    kinds=(["term"] if vocabularies else []) + [n for n in names if n in COLUMNS],
                    term_ids={t.pk for t in self.terms if t.vocabulary in vocabularies},
                )
            for name in names:
                vocabulary = FACETS[name]
                if name == "cause":
                    found = {
                        terms_by_pk[pk].slug: n
                        for pk, n in group["cause"].items()
                        if pk in terms_by_pk
                    }
                elif vocabulary:
                    found = {
                        terms_by_pk[pk].slug: n
                        for pk, n in group["term"].items()
                        if pk in terms_by_pk and terms_by_pk[pk].vocabulary == vocabulary
                    }
                elif name == "org":
                    found = {
                        org.slug: n
                        for pk, n in group["org"].items()
                        if (org := index.organisation(pk))
                    }
                else:  # severity
                    found = group[name]
                counts.facets[name] = found
            if key == full_key:
                for pk, n in group["term"].items():
                    if pk in terms_by_pk:
                        counts.within[(terms_by_pk[pk].vocabulary, terms_by_pk[pk].slug)] = n
                for pk, n in group["cause"].items():
                    if pk in terms_by_pk:
                        counts.within[(Vocabulary.ROOT_CAUSE, terms_by_pk[pk].slug)] = n
                counts.years = sorted((str(year), n) for year, n in group["year"].items())
        return counts

    def survivors(self):
        """The query string with the old slugs of merged terms and organisations replaced by
        their survivors' (a link to a merged one leads there), or None if it names none."""
        terms = self._term_survivors()
        orgs = self._organisation_survivors()
        if not terms and not orgs:
            return None
        data = self.data.copy()
        for name, vocabulary in FACETS.items():
            if vocabulary and terms:
                values = [terms.get((vocabulary, v), v) for v in data.getlist(name)]
            elif name == "org" and orgs:
                values = [orgs.get(v, v) for v in data.getlist(name)]
            else:
                continue
            data.setlist(name, list(dict.fromkeys(values)))
        return data

    def _term_survivors(self):
        """{(vocabulary, old slug): survivor's slug} for the old slugs the query names."""
        wanted = {
            (vocabulary, value)
            for name, vocabulary in FACETS.items()
            if vocabulary
            for value in self.data.getlist(name)
        }
        # Only values that are no term's slug can be old slugs: most requests ask no more.
        public = {(term.vocabulary, term.slug) for term in self.terms}
        wanted -= public
        # Only slugs can be old slugs (and only they may reach the database: no NUL bytes).
        wanted = {(vocabulary, value) for vocabulary, value in wanted if is_slug(value)}
        if not wanted:
            return {}
        redirects = {
            (r.vocabulary, r.old_slug): r.term.slug
            for r in TermRedirect.objects.filter(
                old_slug__in=[v for _, v in wanted]
            ).select_related("term")
            if (r.term.vocabulary, r.term.slug) in public  # not to a term only drafts have
        }
        return {key: slug for key, slug in redirects.items() if key in wanted}

    def _organisation_survivors(self):
        """{old slug: survivor's slug} for the merged organisations' slugs the query names."""
        # Only a slug no public organisation has can be an old one.
        wanted = {
            value
            for value in self.data.getlist("org")
            if is_slug(value) and self.index.organisation_named(value) is None
        }
        if not wanted:
            return {}
        return dict(
            OrganisationRedirect.objects.filter(
                old_slug__in=wanted, organisation__in=Organisation.objects.public()
            ).values_list("old_slug", "organisation__slug")
        )


def invalid_notices(filterset):
    """Why an invalid filterset lists nothing, a sentence for each error."""
    notices = []
    for name, errors in filterset.form.errors.items():
        label = filterset.filters[name].label if name in filterset.filters else name
        notices += [_("%(filter)s: %(error)s") % {"filter": label, "error": e} for e in errors]
    return notices


def filter_key(filterset):
    """What decides a filterset's cases: facets, search and dates (not sort or page)."""
    return frozenset(
        (k, tuple(v)) for k, v in filterset.data.lists() if k in FACETS or k in NARROWING
    )


def page_branch(ordering, offset, limit, condition, params):
    """The keys of one page of f in the list's order, numbered from 1."""
    order = ", ".join(
        f'"{name.lstrip("-")}" {"DESC" if name.startswith("-") else "ASC"}' for name in ordering
    )
    # Integers of our own, so they may be written into the query.
    return (
        f"SELECT ROW_NUMBER() OVER (ORDER BY {order}), NULL, id FROM "
        f"(SELECT * FROM f WHERE {condition} ORDER BY {order} "
        f"LIMIT {int(limit)} OFFSET {int(offset)}) AS p",
        list(params),
    )
