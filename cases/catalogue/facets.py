"""Facet counts, counted the way faceted search counts.

A facet's counts apply every filter except that facet's own selection, so a reader can
add a second value of a facet they already chose. Facets whose other filters are the same
share one aggregate query.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import EmptyResultSet
from django.db import connections

from cases.catalogue.facet_index import (
    COLUMNS,
    CaseSet,
    current_facet_index,
    keys_aggregate,
    numbers,
    term_kind,
)
from cases.catalogue.filters import FACETS
from cases.models import Case, Vocabulary

FACET_LIMIT = 12  # values shown per facet before "show all"


@dataclass
class FacetValue:
    slug: str
    label: str
    count: int
    selected: bool
    obj: object = None


@dataclass
class Facet:
    name: str  # the query parameter
    label: str
    values: list[FacetValue] = field(default_factory=list)

    @property
    def selected(self):
        return [value for value in self.values if value.selected]

    expanded: bool = False

    @property
    def available(self):
        """Terms with cases to show, and any selected term even at zero."""
        return [value for value in self.values if value.count or value.selected]

    @property
    def shown(self):
        """The most frequent values (and every selected one) unless the reader asked for all."""
        available = self.available
        if self.expanded or len(available) <= FACET_LIMIT + 2:
            return available
        top = available[:FACET_LIMIT]
        return top + [value for value in available[FACET_LIMIT:] if value.selected]

    @property
    def hidden_count(self):
        return len(self.available) - len(self.shown)


def filter_key(filterset):
    """What decides a filterset's cases: facets, search and dates (not sort or page)."""
    return frozenset(
        (k, tuple(v)) for k, v in filterset.data.lists() if k in FACETS or k in ("q", "from", "to")
    )


def facet_counts(filterset, terms, index, page=None):
    """Counts for every facet, {facet name: {slug: count}}, and, for the listed cases
    themselves, {(vocabulary, slug): count}, [(year, count)] and, when the list is
    searched or dated, the keys of the page (ordering, offset, limit) asked for (else
    None: the page of a list without either is chosen in SQL).

    Counted from the facet index (cases.catalogue.facet_index): the database is asked only for the
    cases a search or the dates select, and then for those once, whatever the facets.
    """
    groups = defaultdict(list)  # filter key -> facet names counted over those cases
    filtersets = {}
    for name in FACETS:
        others = filterset.without(name) if filterset.selected(name) else filterset
        groups[filter_key(others)].append(name)
        filtersets[filter_key(others)] = others
    # The listed cases themselves: term counts for "most common components in these
    # cases", the year chart and the number of cases all come from their group.
    full_key = filter_key(filterset)
    groups.setdefault(full_key, [])
    filtersets[full_key] = filterset

    narrowed, page_keys = searched_and_dated(filterset, index, page)
    terms_by_pk = {term.pk: term for term in terms}
    counts = {name: {} for name in FACETS}
    within, years = {}, []
    for key, names in groups.items():
        others = filtersets[key]
        selection = faceted(others, index, narrowed) if others.is_valid() else CaseSet()
        if key == full_key:
            group = index.counts(selection)
        else:
            vocabularies = {FACETS[n] for n in names} - {None, Vocabulary.ROOT_CAUSE}
            group = index.counts(
                selection,
                kinds=(["term"] if vocabularies else []) + [n for n in names if n in COLUMNS],
                term_ids={t.pk for t in terms if t.vocabulary in vocabularies},
            )
        for name in names:
            vocabulary = FACETS[name]
            if name == "cause":
                counts[name] = {
                    terms_by_pk[pk].slug: n for pk, n in group["cause"].items() if pk in terms_by_pk
                }
            elif vocabulary:
                counts[name] = {
                    terms_by_pk[pk].slug: n
                    for pk, n in group["term"].items()
                    if pk in terms_by_pk and terms_by_pk[pk].vocabulary == vocabulary
                }
            else:  # org, severity
                counts[name] = group[name]
        if key == full_key:
            for pk, n in group["term"].items():
                if pk in terms_by_pk:
                    within[(terms_by_pk[pk].vocabulary, terms_by_pk[pk].slug)] = n
            for pk, n in group["cause"].items():
                if pk in terms_by_pk:
                    within[(Vocabulary.ROOT_CAUSE, terms_by_pk[pk].slug)] = n
            years = sorted((str(year), n) for year, n in group["year"].items())
    return counts, within, years, page_keys


def listed_cases(filterset, index):
    """The cases a filterset lists, as a set of the index."""
    if not filterset.is_valid():
        return CaseSet()
    narrowed, _page = searched_and_dated(filterset, index, None)
    return faceted(filterset, index, narrowed)


def faceted(filterset, index, narrowed):
    """The cases among `narrowed` (a set of the index) that a valid filterset's facets
    select: values of one facet are OR, facets are AND, as in cases.catalogue.filters."""
    selection = narrowed
    for name, vocabulary in FACETS.items():
        values = filterset.form.cleaned_data.get(name)
        if not values:
            continue
        if vocabulary:
            kind, keys = term_kind(vocabulary), filterset.filters[name].term_ids(values)
        elif name == "org":
            kind, keys = "org", index.organisation_keys(values)
        else:
            kind, keys = name, values
        selection &= index.cases_with(kind, keys)
    return selection


def searched_and_dated(filterset, index, page):
    """(the public cases the search and the dates select, as a set of the index; the keys
    of the page asked for, or None). Without a search or dates, every public case and no
    page: the list chooses its page in SQL, by the indexes on what it sorts by.

    With them, one query: their cases, and the page of those the facets select too, from
    one run of the search (materialized as f).
    """
    narrowing = {name: filterset.data.getlist(name) for name in ("q", "from", "to")}
    if not any(any(values) for values in narrowing.values()):
        return index.public, None
    narrowed = filterset.only(("q", "from", "to"))
    if not narrowed.is_valid():
        return CaseSet(), None
    page = page if filterset.is_valid() else None
    columns = [name.lstrip("-") for name in page[0]] if page else []
    try:
        sql, params = narrowed.qs.order_by().values("id", *columns).query.sql_with_params()
    except EmptyResultSet:  # nothing can match
        return CaseSet(), None
    connection = connections[narrowed.qs.db]
    # The matches' keys in one row, not one row each (a third of the time at 100,000).
    query = f"SELECT 0, {keys_aggregate(connection).format('id')}, NULL FROM f"
    query_params = []
    if page:
        condition, condition_params = "TRUE", []
        if any(filterset.selected(name) for name in FACETS):
            faceted_only = filterset.only(FACETS).qs.order_by().values("id")
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
    page_keys = [pk for n, _keys, pk in sorted(row for row in rows if row[0])] if page else None
    return matched, page_keys


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


def build_facets(filterset, terms, public_queryset, page=None):
    """The facets, the term counts within the listed cases themselves, their years, and
    (`page`: ordering, offset, limit) the keys of one page of them when a search tells
    them at no cost, else None."""
    index = current_facet_index(public_queryset.db)
    counts, within, years, page_keys = facet_counts(filterset, terms, index, page)
    by_vocabulary = defaultdict(list)
    for term in terms:
        by_vocabulary[term.vocabulary].append(term)
    named = [index.organisation(pk) for pk in counts["org"]]
    counts["org"] = {org.slug: counts["org"][org.pk] for org in named if org}
    orgs = {org.slug: org for org in named if org}
    # Selected organisations that no public case has (any more) still show, so they can
    # be removed, but by their slug alone: nothing the public may not see is named.
    for slug in filterset.selected("org"):
        orgs.setdefault(slug, index.organisation_named(slug))

    facets = []
    for name, vocabulary in FACETS.items():
        selected = set(filterset.selected(name))
        label = filterset.filters[name].label
        if vocabulary:
            values = [
                FacetValue(t.slug, t.label, counts[name].get(t.slug, 0), t.slug in selected, t)
                for t in by_vocabulary[vocabulary]
            ]
        elif name == "org":
            values = [
                FacetValue(
                    slug,
                    org.name if org else slug,
                    counts["org"].get(slug, 0),
                    slug in selected,
                    org,
                )
                for slug, org in orgs.items()
            ]
        else:
            values = [
                FacetValue(value, str(label_), counts["severity"].get(value, 0), value in selected)
                for value, label_ in Case.Severity.choices
            ]
        known = {value.slug for value in values}
        values += [FacetValue(slug, slug, 0, True) for slug in selected - known]
        if name != "severity":  # severities keep their own order, low to critical
            values.sort(key=lambda v: (-v.count, v.label.casefold()))
        expanded = name in filterset.data.getlist("expand")
        facets.append(Facet(name, label, values, expanded=expanded))
    return facets, within, years, page_keys
