"""Facet counts, counted the way faceted search counts.

A facet's counts apply every filter except that facet's own selection, so a reader can
add a second value of a facet they already chose. Facets whose other filters are the same
share one aggregate query.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import F, Q
from django.db.models.functions import ExtractYear

from .filters import FACETS
from .models import (
    SLUG_RE,
    Case,
    CaseTerm,
    ContentVersion,
    LibraryCount,
    Organisation,
    Term,
    Vocabulary,
)

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


def facet_counts(filterset, terms, public_queryset, page=None):
    """Counts for every facet, {facet name: {slug: count}}, and, for the listed cases
    themselves, {(vocabulary, slug): count}, [(year, count)] and the keys of one page of
    them where group_counts can tell them (see there; else None)."""
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

    terms_by_pk = {term.pk: term for term in terms}
    counts = {name: {} for name in FACETS}
    within, years, page_keys = {}, [], None
    for key, names in groups.items():
        others = filtersets[key]
        cases = others.qs if others.is_valid() else public_queryset.none()
        if key == full_key:
            group = group_counts(
                cases,
                searched=bool(others.query),
                everything=not key,
                only_searched=bool(key) and all(name == "q" for name, _ in key),
                page=page,
            )
            page_keys = group.get("page")
        else:
            vocabularies = {FACETS[n] for n in names} - {None, Vocabulary.ROOT_CAUSE}
            group = group_counts(
                cases,
                searched=bool(others.query),
                kinds=(["term"] if vocabularies else []) + [n for n in names if n in COLUMN_KINDS],
                term_ids=[t.pk for t in terms if t.vocabulary in vocabularies],
                everything=not key,
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


COLUMN_KINDS = ("org", "cause", "year", "severity")
COLUMN_OF = {"org": "org_id", "cause": "root_cause_id", "year": "year", "severity": "severity"}
# What a page's order may name (cases.listing.sort_fields).
PAGE_COLUMNS = ("date", "public_id", "relevance")


def group_counts(
    cases,
    *,
    searched=False,
    kinds=None,
    term_ids=None,
    everything=False,
    only_searched=False,
    page=None,
    stored=True,
):
    """The counts the list needs over one set of cases, in one query.

    `kinds` says which are needed ("term" and the COLUMN_KINDS; all by default) and
    `term_ids` which terms (all by default): a facet that ignores its own selection needs
    only its own counts over its group of cases. `everything` says the cases are the
    whole public library, `only_searched` that they are its matches of a search and of
    nothing else. `page` (ordering, offset, limit) asks for the keys of one page
    of the cases too, in group["page"], when a search makes that free (see below).

    The case columns (organisation, cause, year, severity) are counted in one pass over
    the filter: on PostgreSQL by GROUPING SETS, elsewhere from one materialized run of
    it. Terms are counted from their own run of the filter: a CTE would keep PostgreSQL
    from joining the terms of 100,000 cases in parallel, which halves that, the largest
    part. A search, though, costs more to run twice than that gains: then the filter is
    materialized once (as f), and terms, columns and the page all come from it.

    The whole library's counts come from LibraryCount while they stand (`stored`, see
    ContentVersion.counted); the query counts them itself only when they do not.
    """
    kinds = {"term", *COLUMN_KINDS} if kinds is None else set(kinds)
    group = {kind: {} for kind in ("term", *COLUMN_KINDS)}
    columns = [kind for kind in COLUMN_KINDS if kind in kinds]
    if not kinds:
        return group
    materialize = bool(searched and columns)
    page = page if materialize else None
    filtered = (
        cases.order_by()
        .annotate(year=ExtractYear("date"))
        .values(
            "id", "org_id", "severity", "root_cause_id", "year", *(PAGE_COLUMNS if page else ())
        )
    )
    try:
        sql, params = filtered.query.sql_with_params()
        ids = cases.order_by().values("id").query.sql_with_params()
    except EmptyResultSet:  # an invalid filter selects nothing
        return group
    by_grouping_sets = connections[filtered.db].vendor == "postgresql"
    # Elsewhere the columns are grouped one at a time, so from a materialized run.
    materialize = materialize or bool(columns and not by_grouping_sets)
    # SQL true while the kept counts stand. To PostgreSQL it is a constant: of the kept
    # counts and the counting below, it runs one side only.
    stands = ContentVersion.counts_stand_sql() if stored else None

    # Every branch gives (kind, key, number); keys are text so that one union holds ids,
    # years and severities alike.
    branches = []
    complement = "term" in kinds and only_searched and materialize and by_grouping_sets
    if "term" in kinds:
        branches += term_branches(
            ids,
            term_ids,
            everything=everything,
            from_f=materialize,
            complement=complement,
            stands=stands,
        )
    if columns and everything and stands:
        branches.append(kept_branch(columns, None, stands))
        sql = f"SELECT * FROM ({sql}) AS counted WHERE NOT {stands}"
    if columns:
        source = ("f", []) if materialize else (f"({sql}) AS f", params)
        if by_grouping_sets:
            branches.append(grouping_sets_branch(columns, source))
        else:
            branches += [column_branch(kind) for kind in columns]
    if page:
        branches.append(page_branch(*page))
    query = " UNION ALL ".join(sql for sql, _ in branches)
    query_params = [param for _, branch_params in branches for param in branch_params]
    if materialize:
        ctes, cte_params = f"f AS MATERIALIZED ({sql})", list(params)
        if complement:
            most_sql, most_params = most_matched()
            ctes += f", most AS MATERIALIZED ({most_sql})"
            cte_params += most_params
        query = f"WITH {ctes} {query}"
        query_params = [*cte_params, *query_params]
    with connections[filtered.db].cursor() as cursor:
        cursor.execute(query, query_params)
        rows = cursor.fetchall()

    hidden, page_rows = {}, []
    for kind, value, n in rows:
        if value is None or not n:  # cases without a root cause; unused terms
            continue
        if kind == "page":
            page_rows.append((n, int(value)))
        elif kind == "hidden":  # uses to take off the term's count (see term_branches)
            hidden[int(value)] = hidden.get(int(value), 0) + n
        else:
            group[kind][value if kind == "severity" else int(value)] = n
    for pk, n in hidden.items():
        group["term"][pk] -= n
        if not group["term"][pk]:
            del group["term"][pk]
    if page:
        group["page"] = [pk for _position, pk in sorted(page_rows)]
    return group


def term_branches(ids, term_ids, *, everything, from_f, complement=False, stands=None):
    """How many of the cases each term has: [(sql, params)]. `ids` selects the cases;
    `from_f`, that they are materialized as f. `complement` (PostgreSQL), that f is the
    public library's matches of a search: when those are most of it, the terms are
    counted as the whole library's, less their uses in the cases that do not match.
    `stands`: SQL true while LibraryCount's counts stand, which then give the library's."""
    table = CaseTerm._meta.db_table

    def only(column):
        if term_ids is None:
            return ""
        # Integer ids from our own terms, so they may be written into the query.
        return f"AND {column} IN ({', '.join(str(int(pk)) for pk in term_ids) or 'NULL'})"

    def library(condition="TRUE"):
        if not stands:
            return count_library(condition)
        return [
            kept_branch(["term"], term_ids, f"{condition} AND {stands}"),
            *count_library(f"{condition} AND NOT {stands}"),
        ]

    def count_library(condition):
        """Every use of a term, less its uses in the few cases the public does not see:
        no join to the cases, about half the time of the join at 100,000. Counted term
        by term, each from its own range of the term_id index (unused terms count 0):
        PostgreSQL would rather hash every row of the table, which takes twice as long."""
        hidden_sql, hidden_params = (
            Case.objects.unpublished().order_by().values("id").query.sql_with_params()
        )
        term_table = Term._meta.db_table
        return [
            (
                f"SELECT 'term', CAST(id AS TEXT), (SELECT COUNT(*) FROM {table} "
                f"WHERE term_id = {term_table}.id) FROM {term_table} "
                f"WHERE {condition} {only('id')}",
                [],
            ),
            (
                f"SELECT 'hidden', CAST(term_id AS TEXT), COUNT(*) FROM {table} "
                f"WHERE case_id IN ({hidden_sql}) AND {condition} {only('term_id')} "
                "GROUP BY term_id",
                list(hidden_params),
            ),
        ]

    if everything:
        return library()
    if from_f:
        condition, more = "TRUE", []
        if complement:
            # Joining the terms of 100,000 matches costs more than counting the library's
            # and those of the few cases that do not match. Which way is chosen as the
            # query runs (`most`, see most_matched): to PostgreSQL the conditions are
            # constants, so it runs one side only.
            most = "(SELECT yes FROM most)"
            public_sql, public_params = public_ids()
            unmatched = (
                f"SELECT p.id FROM ({public_sql}) AS p WHERE NOT EXISTS "
                "(SELECT 1 FROM f WHERE f.id = p.id)"
            )
            condition = f"NOT {most}"
            more = [
                *library(most),
                (
                    # As an array, the few ids are looked up one by one in (case_id, term_id).
                    f"SELECT 'hidden', CAST(term_id AS TEXT), COUNT(*) FROM {table} "
                    f"WHERE case_id = ANY (ARRAY({unmatched})) AND {most} {only('term_id')} "
                    "GROUP BY term_id",
                    public_params,
                ),
            ]
        # A join, not IN: the planner knows how many rows f has only this way (it
        # guesses 200 distinct ids otherwise, and looks each case's terms up in turn).
        joined = (
            f"SELECT 'term', CAST(term_id AS TEXT), COUNT(*) FROM {table} "
            f"JOIN f ON f.id = case_id WHERE {condition} {only('term_id')} GROUP BY term_id"
        )
        return [(joined, []), *more]
    ids_sql, ids_params = ids
    return [
        (
            f"SELECT 'term', CAST(term_id AS TEXT), COUNT(*) FROM {table} "
            f"WHERE case_id IN ({ids_sql}) {only('term_id')} GROUP BY term_id",
            list(ids_params),
        )
    ]


def kept_branch(kinds, term_ids, condition):
    """The kept counts (LibraryCount) of these kinds, of these terms only if `term_ids`."""
    # Kinds and ids are our own constants, so they may be written into the query.
    kinds_sql = ", ".join(f"'{kind}'" for kind in kinds)
    only = ""
    if term_ids is not None:
        keys = ", ".join(f"'{int(pk)}'" for pk in term_ids) or "NULL"
        only = f"AND (kind <> 'term' OR key IN ({keys}))"
    return (
        f"SELECT kind, key, count FROM {LibraryCount._meta.db_table} "
        f"WHERE kind IN ({kinds_sql}) AND {condition} {only}",
        [],
    )


def refresh_library_counts(using):
    """Count the whole public library again into LibraryCount, for the current version.

    Called by cases.caching.public_content_changed, in the transaction of the change.
    """
    group = group_counts(Case.objects.using(using).published(), everything=True, stored=False)
    LibraryCount.objects.using(using).all().delete()
    LibraryCount.objects.using(using).bulk_create(
        LibraryCount(kind=kind, key=str(key), count=n)
        for kind, counts in group.items()
        for key, n in counts.items()
    )
    ContentVersion.objects.using(using).filter(pk=ContentVersion.ROW).update(counted=F("number"))


def public_ids():
    return Case.objects.published().order_by().values("id").query.sql_with_params()


def most_matched():
    """A CTE's (sql, params): whether f holds most of the public library, once per query."""
    public_sql, public_params = public_ids()
    return (
        f"SELECT (SELECT COUNT(*) FROM f) * 2 > (SELECT COUNT(*) FROM ({public_sql}) AS p) AS yes",
        list(public_params),
    )


def grouping_sets_branch(columns, source):
    """The case columns' counts in one pass over `source` (sql, params), PostgreSQL's way."""
    source_sql, source_params = source
    kind_sql = " ".join(f"WHEN GROUPING({COLUMN_OF[k]}) = 0 THEN '{k}'" for k in columns)
    key_sql = " ".join(
        f"WHEN GROUPING({COLUMN_OF[k]}) = 0 THEN CAST({COLUMN_OF[k]} AS TEXT)" for k in columns
    )
    sets = ", ".join(f"({COLUMN_OF[kind]})" for kind in columns)
    return (
        f"SELECT CASE {kind_sql} END, CASE {key_sql} END, COUNT(*) FROM {source_sql} "
        f"GROUP BY GROUPING SETS ({sets})",
        list(source_params),
    )


def column_branch(kind):
    column = COLUMN_OF[kind]
    return f"SELECT '{kind}', CAST({column} AS TEXT), COUNT(*) FROM f GROUP BY {column}", []


def page_branch(ordering, offset, limit):
    """The keys of one page of f in the list's order, numbered: PostgreSQL would otherwise
    read the vectors of every match of a search again to choose the page."""
    order = ", ".join(
        f'"{name.lstrip("-")}" {"DESC" if name.startswith("-") else "ASC"}' for name in ordering
    )
    # Integers of our own, so they may be written into the query.
    return (
        f"SELECT 'page', CAST(id AS TEXT), ROW_NUMBER() OVER (ORDER BY {order}) FROM "
        f"(SELECT * FROM f ORDER BY {order} LIMIT {int(limit)} OFFSET {int(offset)}) AS p",
        [],
    )


class OrganisationName(NamedTuple):
    """What the list shows of an organisation: a model instance each costs more."""

    pk: int
    slug: str
    name: str


# Naming more organisations than this in a query (hundreds of parameters) costs more than
# reading every one of them.
ORGANISATIONS_BY_KEY = 50


def organisation_names(pks, slugs):
    """The organisations with these primary keys or slugs, as OrganisationName."""
    rows = Organisation.objects.order_by().values_list("pk", "slug", "name")
    if len(pks) <= ORGANISATIONS_BY_KEY:
        rows = rows.filter(Q(pk__in=pks) | Q(slug__in=slugs))
    slugs = set(slugs)
    return [OrganisationName(*row) for row in rows if row[0] in pks or row[1] in slugs]


def build_facets(filterset, terms, public_queryset, page=None):
    """The facets, the term counts within the listed cases themselves, their years, and
    (`page`: ordering, offset, limit) the keys of one page of them when a search tells
    them at no cost, else None."""
    counts, within, years, page_keys = facet_counts(filterset, terms, public_queryset, page)
    by_vocabulary = defaultdict(list)
    for term in terms:
        by_vocabulary[term.vocabulary].append(term)
    # Only slugs reach the database: a value with a NUL byte would be refused by PostgreSQL.
    selected_orgs = [slug for slug in filterset.selected("org") if SLUG_RE.match(slug)]
    by_pk = {org.pk: org for org in organisation_names(set(counts["org"]), selected_orgs)}
    counts["org"] = {by_pk[pk].slug: n for pk, n in counts["org"].items() if pk in by_pk}
    orgs = {org.slug: org for org in by_pk.values()}
    # Selected organisations that no case has any more still show, so they can be removed.
    for slug in filterset.selected("org"):
        orgs.setdefault(slug, None)

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
